package serve

import (
	"context"
	"net/http"
)

// withSlot runs f holding one of the call slots (MaxConcurrentCalls), or
// answers 503 "busy" when none comes free before ctx ends. Diffs, state
// hashes and scores run bundle SQL over all the episode's changes: as much
// work as a call or more, and memory in proportion to the changes (a state
// hash holds a quarter of them; a 200 MB episode took 10 s). Under the same
// cap as calls, at most MaxConcurrentCalls of them run at once, whatever
// the number of clients asking.
func (s *Server) withSlot(ctx context.Context, f func() error) error {
	select {
	case s.slots <- struct{}{}:
	default:
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			return errf(http.StatusServiceUnavailable, CodeBusy, "no call slot came free within the server's call timeout: %v", ctx.Err())
		}
	}
	defer func() { <-s.slots }()
	return f()
}

// oeStateOf is OpenEnv's State: episode_id and step_count, plus extras:
// the state hash, or why there is none (state_hash_error: the hash ran
// out of SQLite memory or time, or no call slot came free).
func (s *Server) oeStateOf(ctx context.Context, e *episode) map[string]any {
	st := map[string]any{"episode_id": e.id, "step_count": e.steps, "env": e.env.Name(),
		"seed": e.ep.Seed(), "done": e.done}
	if t := e.ep.Task(); t != nil {
		st["task"] = t.ID
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	var h string
	err := s.withSlot(ctx, func() (err error) { h, err = e.ep.StateHash(); return err })
	if err != nil {
		st["state_hash_error"] = err.Error()
	} else {
		st["state_hash"] = h
	}
	return st
}
