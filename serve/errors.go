package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/wasmenv/wasmenv/runtime"
)

// episodeError maps an error from a runtime episode to an API error: the
// environment ran out of memory (507), the episode's state was lost and
// needs a reset (409 state_lost), or the episode is closed (409).
func episodeError(id string, err error) *apiError {
	switch {
	case errors.Is(err, runtime.ErrStateLost):
		return errf(http.StatusConflict, CodeStateLost, "episode %s: %v", id, err)
	case errors.Is(err, runtime.ErrOutOfMemory):
		return errf(http.StatusInsufficientStorage, CodeOutOfMemory, "episode %s: %v", id, err)
	}
	return errf(http.StatusConflict, CodeEpisodeClosed, "episode %s: %v", id, err)
}

// stateError maps a failed diff, state hash or score.
func stateError(code Code, what string, err error) *apiError {
	switch {
	case errors.Is(err, runtime.ErrStateLost):
		return errf(http.StatusConflict, CodeStateLost, "%s: %v", what, err)
	case errors.Is(err, runtime.ErrOutOfMemory):
		return errf(http.StatusInsufficientStorage, CodeOutOfMemory, "%s: %v", what, err)
	}
	return errf(http.StatusUnprocessableEntity, code, "%s: %v", what, err)
}

func scoreError(err error) *apiError { return stateError(CodeScoreFailed, "scoring", err) }

// timeoutResult is the one way a call that ran out of time reaches a
// client, whichever wait ran out (the episode's lock, a call slot, the
// tool's own call_timeout): HTTP 200, is_error, outcome "timeout", which
// runtime.Outcome.EnvFault marks as the environment's failure, not the
// agent's.
func timeoutResult(why string) runtime.Result {
	return runtime.Result{Content: "Error: the call timed out: " + why, IsError: true, Outcome: runtime.OutcomeTimeout}
}

// lockForCall is lockEpisode for the routes that run a tool call: a wait
// for the episode's lock that runs out of time is the timeout outcome
// (written by timedOut), not a 503.
func (s *Server) lockForCall(w http.ResponseWriter, r *http.Request, timedOut func(runtime.Result)) (ctx context.Context, e *episode, release func(), ok bool) {
	ctx, cancel := s.callCtx(r)
	e, unlock, err := s.use(ctx, r.PathValue("id"))
	if err != nil {
		cancel()
		var ae *apiError
		if errors.As(err, &ae) && ae.code == CodeBusy && r.Context().Err() == nil {
			s.stats.calls.Add(1)
			timedOut(timeoutResult(busyEpisode))
			return nil, nil, nil, false
		}
		writeError(w, err)
		return nil, nil, nil, false
	}
	return ctx, e, func() { unlock(); cancel() }, true
}

// The two waits a tool call may run out of time in, as the agent reads them.
const (
	busyEpisode = "the episode stayed busy with another request for the server's call timeout"
	busySlot    = "no call slot came free within the server's call timeout"
)

// callEpisode is the one way a route runs a tool call on an episode it
// has not locked (MCP, NeMo Gym): under the episode's lock, waited for
// within ctx; a wait for the lock or for a call slot that runs out is the
// timeout outcome (the environment's failure), never an error.
func (s *Server) callEpisode(ctx context.Context, e *episode, name string, args json.RawMessage) (runtime.Result, error) {
	if err := e.acquire(ctx); err != nil {
		s.stats.calls.Add(1)
		return timeoutResult(busyEpisode), nil
	}
	defer e.release()
	return s.callHeld(ctx, e, name, args)
}

// callHeld runs a tool call on an episode whose lock the caller holds
// (the episode API's /call, after lockForCall); a wait for a call slot
// that runs out is the timeout outcome.
func (s *Server) callHeld(ctx context.Context, e *episode, name string, args json.RawMessage) (runtime.Result, error) {
	if e.ep == nil {
		return runtime.Result{}, errNoEpisode(e.id)
	}
	res, err := s.doCall(ctx, e, name, args)
	if isBusy(err) {
		return timeoutResult(busySlot), nil
	}
	return res, err
}

// isBusy reports a wait for a call slot that ran out of time.
func isBusy(err error) bool {
	if err == nil { // the usual case, without errors.As's allocation
		return false
	}
	var ae *apiError
	return errors.As(err, &ae) && ae.code == CodeBusy
}
