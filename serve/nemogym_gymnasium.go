package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/wasmenv/wasmenv/runtime"
)

// NeMo Gym's Gymnasium routes, where the resources server owns the
// conversation: NVIDIA-NeMo/Gym's GymnasiumServer
// (resources_servers/gymnasium/base.py) driven by its gymnasium_agent
// (responses_api_agents/gymnasium_agent/app.py). This is the route for a
// simulated user: simple_agent's prompt is fixed in the dataset and its
// loop ends at the first reply without a call, so it has no way to talk
// to a user. Under /nemo-gym/{env}/ (and at the root with NeMoGymRoot):
//
//	POST reset   body: the run request (as seed_session). Creates the
//	             session's episode and answers {"observation", "info"}
//	             (EnvResetResponse): the simulated user's opening, which
//	             the agent appends to the input as the user's message, or
//	             null without a user (the dataset's input has the
//	             instruction).
//	POST step    body: the run request plus "response", the model's
//	             Responses API output. Its function calls run as tool
//	             steps, their outputs in info.tool_outputs ({call_id,
//	             output, outcome}); a response without calls is the agent's words:
//	             with a user, a message step whose observation is the
//	             user's reply (the user's stop terminates the episode),
//	             without one the final answer. Answers EnvStepResponse
//	             {observation, reward, terminated, truncated, info}; the
//	             reward is the task's score on the step that ends the
//	             episode and 0 before (the agent sums them), and the
//	             episode is deleted when it ends.
//	POST close   deletes the session's episode, if any; reset's info says
//	             supports_explicit_close, so the agent calls it after
//	             every rollout, failed or not.
//
// The same rule as `wasmenv rollout`: a reply with calls is a tool turn
// (its text is not said to the user), a reply without calls is the
// answer, said to the user when there is one. A call whose outcome is the
// environment's failure (a trap, a timeout) fails the step with 500, and
// a call slot that never came free with 503: either way gymnasium_agent
// fails the rollout, which then gets no reward (the core's rule).

func (s *Server) ngReset(w http.ResponseWriter, r *http.Request) {
	e, ok := s.ngStart(w, r, false)
	if !ok {
		return
	}
	var obs *string
	if e.hasUser {
		obs = &e.opening
	}
	writeJSON(w, http.StatusOK, map[string]any{"observation": obs,
		"info": map[string]any{"supports_explicit_close": true, "task": e.task}})
}

// ngTaskSeed reads the run request's episode choice: "task" (or a
// "task_id" naming one of the bundle's tasks) and "seed"; false when it
// wrote the error.
func ngTaskSeed(w http.ResponseWriter, env *runtime.Env, body map[string]json.RawMessage) (task string, seed int64, ok bool) {
	if raw, has := body["task"]; has && string(raw) != "null" {
		if json.Unmarshal(raw, &task) != nil {
			ngValidation(w, "string_type", []any{"body", "task"}, "Input should be a valid string", json.RawMessage(raw))
			return "", 0, false
		}
	} else if raw, has := body["task_id"]; has {
		// NeMo Gym rows name their task in task_id too; it is ours when
		// it names one of the bundle's tasks.
		var id string
		if json.Unmarshal(raw, &id) == nil {
			if _, known := env.Bundle.Task(id); known {
				task = id
			}
		}
	}
	if raw, has := body["seed"]; has && string(raw) != "null" {
		if json.Unmarshal(raw, &seed) != nil {
			ngValidation(w, "int_type", []any{"body", "seed"}, "Input should be a valid integer", json.RawMessage(raw))
			return "", 0, false
		}
	}
	return task, seed, true
}

// gymStep is EnvStepResponse.
type gymStep struct {
	Observation *string        `json:"observation"`
	Reward      float64        `json:"reward"`
	Terminated  bool           `json:"terminated"`
	Truncated   bool           `json:"truncated"`
	Info        map[string]any `json:"info"`
}

// gymToolOutput is what gymnasium_agent turns into a function_call_output.
type gymToolOutput struct {
	CallID  string          `json:"call_id"`
	Output  string          `json:"output"`
	Outcome runtime.Outcome `json:"outcome"`
}

func (s *Server) ngStep(w http.ResponseWriter, r *http.Request) {
	env, ok := s.ngEnv(w, r)
	if !ok {
		return
	}
	body, ok := s.ngBody(w, r)
	if !ok {
		return
	}
	if _, has := body["response"]; !has {
		ngValidation(w, "missing", []any{"body", "response"}, "Field required", body)
		return
	}
	var resp ngResponse
	if err := json.Unmarshal(body["response"], &resp); err != nil {
		ngValidation(w, "model_type", []any{"body", "response"}, "Input should be a valid response object: "+jsonMessage(err), body["response"])
		return
	}
	e := s.ngSession(r, env.Name())
	if e == nil {
		ngError(w, errf(http.StatusBadRequest, CodeNoSession, "no session: POST %s%s/reset first, and send its cookie", nemoGymPrefix, env.Name()))
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	// A wait for the lock that runs out is 503, not the timeout outcome of
	// callEpisode: a step may be words to the user, which have no outcome
	// to carry it, and gymnasium_agent fails the rollout on it (no reward),
	// which is what an environment failure should cost.
	if err := e.acquire(ctx); err != nil {
		s.setNGCookie(w, env.Name(), e.id)
		ngError(w, errf(http.StatusServiceUnavailable, CodeBusy, "the session's episode is busy: %v", err))
		return
	}
	out, err := s.gymStepLocked(ctx, e, &resp)
	e.release()
	if err != nil {
		s.setNGCookie(w, env.Name(), e.id)
		ngError(w, err)
		return
	}
	if out.Terminated || out.Truncated {
		s.ngDelete(e)
		s.setNGCookie(w, env.Name(), "")
	} else {
		s.setNGCookie(w, env.Name(), e.id)
	}
	writeJSON(w, http.StatusOK, out)
}

// gymStepLocked applies one model response to a locked episode.
func (s *Server) gymStepLocked(ctx context.Context, e *episode, resp *ngResponse) (gymStep, error) {
	out := gymStep{Info: map[string]any{}}
	if e.ep == nil {
		return out, errNoEpisode(e.id)
	}
	var last stepResp
	if calls := resp.calls(); len(calls) > 0 {
		outputs := make([]gymToolOutput, 0, len(calls))
		for _, c := range calls {
			res, err := s.doStep(ctx, e, &action{Name: c.Name, Arguments: c.arguments()})
			if err != nil { // a wait for a call slot that ran out too: 503 busy
				return out, err
			}
			if res.Info.Outcome.EnvFault() {
				// The environment failed, not the agent: the step fails
				// as simple_agent's tool route does (500), and
				// gymnasium_agent drops the rollout rather than train on
				// a reward reached past a broken environment.
				return out, errf(http.StatusInternalServerError, CodeInternal, "the environment failed on %s (outcome %s): %s", c.Name, res.Info.Outcome, res.Observation)
			}
			outputs = append(outputs, gymToolOutput{CallID: c.CallID, Output: res.Observation, Outcome: res.Info.Outcome})
			last = res
			if res.Truncated {
				break // the step limit: the remaining calls are not run
			}
		}
		out.Info["tool_outputs"] = outputs
	} else {
		words, _ := resp.answer()
		a := &action{Type: "final", Answer: &words}
		if e.hasUser {
			a = &action{Type: "message", Content: &words}
		}
		res, err := s.doStep(ctx, e, a)
		if err != nil {
			return out, err
		}
		last = res
		if e.hasUser {
			out.Observation = &res.Observation
		}
	}
	out.Reward, out.Terminated, out.Truncated = last.Reward, last.Terminated, last.Truncated
	out.Info["step"] = last.Info.Step
	if last.Info.Score != nil {
		out.Info["score"] = last.Info.Score
	}
	return out, nil
}

func (s *Server) ngClose(w http.ResponseWriter, r *http.Request) {
	env, ok := s.ngEnv(w, r)
	if !ok {
		return
	}
	if e := s.ngSession(r, env.Name()); e != nil {
		s.ngDelete(e)
	}
	s.setNGCookie(w, env.Name(), "")
	writeJSON(w, http.StatusOK, map[string]any{})
}

// ngCall is a function_call output item of a Responses API response.
type ngCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
}

// arguments are the call's arguments as the tool gets them: the model's
// text when it is JSON, and otherwise the text as a JSON string, which
// the tool refuses as invalid arguments (the model reads why).
func (c ngCall) arguments() json.RawMessage {
	if strings.TrimSpace(c.Arguments) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(c.Arguments)) {
		return json.RawMessage(c.Arguments)
	}
	b, _ := json.Marshal(c.Arguments)
	return b
}

// calls are the response's function calls, in order.
func (r *ngResponse) calls() []ngCall {
	var out []ngCall
	for _, o := range r.Output {
		if o.Type == "function_call" {
			out = append(out, ngCall{Name: o.Name, Arguments: o.Arguments, CallID: o.CallID})
		}
	}
	return out
}

// rootGym serves a root route (POST /reset or /step) as NeMo Gym's when
// the server has a NeMo Gym root and the body is NeMo Gym's (it has
// "responses_create_params", which every gymnasium_agent request carries
// and no OpenEnv request does), and as OpenEnv's otherwise.
func (s *Server) rootGym(openEnv, nemoGym http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		root := s.opts.NeMoGymRoot
		if root == "" {
			openEnv(w, r)
			return
		}
		raw, err := readBody(w, r, s.opts.MaxBodyBytes)
		if err != nil {
			writeError(w, err)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
		var probe struct {
			Params json.RawMessage `json:"responses_create_params"`
		}
		if json.Unmarshal(raw, &probe) != nil || probe.Params == nil {
			openEnv(w, r)
			return
		}
		r.SetPathValue("env", root)
		nemoGym(w, r)
	}
}
