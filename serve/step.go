package serve

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/wasmenv/wasmenv/runtime"
)

// The Gym-shaped /step: a tool call, a message to the simulated user, or
// the final answer; the reward comes when the episode ends.

// action is a step's action: a tool call (type "call_tool", the default),
// the agent's final answer (type "final"), a message to the simulated user
// (type "message", with content), or a tool listing (type "list_tools",
// OpenEnv only). tool_name is OpenEnv's name for name.
type action struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments"`
	Answer    *string         `json:"answer"`
	Content   *string         `json:"content"`
	Metadata  map[string]any  `json:"metadata"`
}

type stepReq struct {
	Action *action `json:"action"`
}

type stepInfo struct {
	IsError bool            `json:"is_error"`
	Outcome runtime.Outcome `json:"outcome,omitempty"` // of a tool call: ok, tool_error, unknown_tool, …
	Tool    string          `json:"tool,omitempty"`
	Step    int             `json:"step"`
	Score   *runtime.Score  `json:"score,omitempty"`
}

type stepResp struct {
	Observation string   `json:"observation"`
	Reward      float64  `json:"reward"`
	Terminated  bool     `json:"terminated"`
	Truncated   bool     `json:"truncated"`
	Info        stepInfo `json:"info"`
}

func (s *Server) step(w http.ResponseWriter, r *http.Request) {
	var req stepReq
	if err := s.decodeJSON(w, r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	if req.Action == nil {
		writeError(w, badRequest("step needs an action: {\"action\": {\"name\": TOOL, \"arguments\": {...}}} or {\"action\": {\"type\": \"final\", \"answer\": TEXT}}"))
		return
	}
	ctx, e, release, ok := s.lockForCall(w, r, func(res runtime.Result) {
		writeJSON(w, http.StatusOK, stepResp{Observation: res.Content, Info: stepInfo{IsError: true, Outcome: res.Outcome}})
	})
	if !ok {
		return
	}
	defer release()
	out, err := s.doStep(ctx, e, req.Action)
	if isBusy(err) { // the call never ran: the step does not count
		res := timeoutResult(busySlot)
		out = stepResp{Observation: res.Content, Info: stepInfo{IsError: true, Outcome: res.Outcome, Step: e.steps}}
		err = nil
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// doStep applies a step's action to a locked episode; see the package doc
// for when a reward is computed.
func (s *Server) doStep(ctx context.Context, e *episode, a *action) (stepResp, error) {
	if e.done {
		return stepResp{}, errf(http.StatusConflict, CodeEpisodeDone, "episode %s has ended; reset it to start again", e.id)
	}
	var out stepResp
	answer := a.Answer // scored when the step ends the episode
	switch a.Type {
	case "", "call_tool":
		name := a.Name
		if name == "" {
			name = a.ToolName
		}
		if name == "" {
			return out, badRequest("the action names no tool (\"name\")")
		}
		res, err := s.doCall(ctx, e, name, a.Arguments)
		if err != nil {
			return out, err
		}
		e.steps++
		out.Observation, out.Info.IsError, out.Info.Outcome, out.Info.Tool = res.Content, res.IsError, res.Outcome, name
		if e.maxSteps > 0 && e.steps >= e.maxSteps {
			out.Truncated = true
		}
	case "final":
		e.steps++
		out.Terminated = true
	case "message":
		if a.Content == nil {
			return out, badRequest("a message to the user needs its text (\"content\")")
		}
		reply, stopped, err := s.sayLocked(ctx, e, *a.Content)
		if err != nil {
			return out, err
		}
		e.steps++
		out.Observation, out.Terminated, answer = reply, stopped, a.Content
		if !stopped && e.maxSteps > 0 && e.steps >= e.maxSteps {
			out.Truncated = true
		}
	default:
		return out, badRequest("unknown action type %q (want \"call_tool\", \"message\" or \"final\")", a.Type)
	}
	s.stats.steps.Add(1)
	out.Info.Step = e.steps
	if out.Terminated || out.Truncated {
		e.done = true
		if !out.Terminated {
			answer = nil // cut short: the agent gave no answer
		}
		if e.ep.Task() != nil {
			var sc runtime.Score
			err := s.withSlot(ctx, func() (err error) { sc, err = e.ep.Score(ctx, answer); return err })
			if isBusy(err) { // the step counted and ended the episode: say how to get its reward
				return out, errf(http.StatusServiceUnavailable, CodeScoreBusy, "the episode has ended, but no call slot came free to score it within the server's call timeout; POST /v1/episodes/%s/score for its reward", e.id)
			}
			if err != nil {
				return out, scoreError(err)
			}
			s.stats.scores.Add(1)
			out.Reward, out.Info.Score = sc.Reward, &sc
		}
	}
	return out, nil
}
