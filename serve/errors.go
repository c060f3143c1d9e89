package serve

import (
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
		return errf(http.StatusConflict, "state_lost", "episode %s: %v", id, err)
	case errors.Is(err, runtime.ErrOutOfMemory):
		return errf(http.StatusInsufficientStorage, "out_of_memory", "episode %s: %v", id, err)
	}
	return errf(http.StatusConflict, "episode_closed", "episode %s: %v", id, err)
}

// stateError maps a failed diff, state hash or score.
func stateError(code, what string, err error) *apiError {
	switch {
	case errors.Is(err, runtime.ErrStateLost):
		return errf(http.StatusConflict, "state_lost", "%s: %v", what, err)
	case errors.Is(err, runtime.ErrOutOfMemory):
		return errf(http.StatusInsufficientStorage, "out_of_memory", "%s: %v", what, err)
	}
	return errf(http.StatusUnprocessableEntity, code, "%s: %v", what, err)
}

func scoreError(err error) *apiError { return stateError("score_failed", "scoring", err) }
