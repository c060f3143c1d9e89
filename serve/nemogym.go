package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/runtime"
)

// NeMo Gym resources-server routes, one set per environment under
// /nemo-gym/{env}/, shaped as NVIDIA-NeMo/Gym's SimpleResourcesServer
// (nemo_gym/base_resources_server.py) and its simple_agent use them:
//
//	POST seed_session  body: the run request (responses_create_params and
//	                   the dataset row's fields; "task" — or a "task_id"
//	                   naming a task — and "seed" choose the episode);
//	                   answer {} (BaseSeedSessionResponse) and the session
//	                   cookie. A new seed replaces the cookie's episode.
//	POST {tool}        body: the call's arguments; answer the tool's output
//	                   as the body, which the agent hands to the model.
//	POST verify        body: BaseVerifyRequest (responses_create_params,
//	                   response); answer the request's fields and "reward"
//	                   (BaseVerifyResponse). The episode is scored with the
//	                   last assistant message as its answer, then deleted.
//
// Sessions are cookies, as Starlette's SessionMiddleware gives NeMo Gym:
// every answer sets the cookie again, because the agent forwards only the
// cookies of the last answer it got. Errors are FastAPI's: {"detail":
// "message"} with the status, 422 {"detail": [{type, loc, msg, input}]}
// for a body that fails validation, 404 {"detail": "Not Found"} for a tool
// that does not exist.

const nemoGymPrefix = "/nemo-gym/"

func (s *Server) nemoGymRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /nemo-gym/{env}/seed_session", s.ngSeedSession)
	m.HandleFunc("POST /nemo-gym/{env}/verify", s.ngVerify)
	m.HandleFunc("POST /nemo-gym/{env}/reset", s.ngReset) // nemogym_gymnasium.go
	m.HandleFunc("POST /nemo-gym/{env}/step", s.ngStep)
	m.HandleFunc("POST /nemo-gym/{env}/close", s.ngClose)
	m.HandleFunc("POST /nemo-gym/{env}/aggregate_metrics", s.ngAggregateMetrics) // nemogym_metrics.go
	m.HandleFunc("POST /nemo-gym/{env}/{tool}", s.ngTool)
	m.HandleFunc("/nemo-gym/", func(w http.ResponseWriter, r *http.Request) {
		ngDetail(w, http.StatusNotFound, "Not Found")
	})
	if env := s.opts.NeMoGymRoot; env != "" {
		root := func(h http.HandlerFunc) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				r.SetPathValue("env", env)
				h(w, r)
			}
		}
		// NeMo Gym waits for a server until GET / answers (setup_liveness).
		m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
		})
		m.HandleFunc("POST /seed_session", root(s.ngSeedSession))
		m.HandleFunc("POST /verify", root(s.ngVerify))
		m.HandleFunc("POST /close", root(s.ngClose)) // POST /reset and /step: rootGym
		m.HandleFunc("POST /aggregate_metrics", root(s.ngAggregateMetrics))
		m.HandleFunc("POST /{tool}", root(s.ngTool))
	}
}

// rootPOST are the server's own POST routes at the root: a tool of the
// NeMoGymRoot environment with one of these names would be hidden.
var rootPOST = []string{"reset", "step", "close", "mcp", "seed_session", "verify", "aggregate_metrics"}

func (s *Server) checkNeMoGymRoot() error {
	name := s.opts.NeMoGymRoot
	if name == "" {
		return nil
	}
	env, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("serve: NeMo Gym root: no environment named %q", name)
	}
	for _, t := range env.Tools() {
		if slices.Contains(rootPOST, t.Name) {
			return fmt.Errorf("serve: NeMo Gym root: tool %q of %s has the name of a root route; use /nemo-gym/%s/ instead", t.Name, name, name)
		}
	}
	return nil
}

// ngCookie is the session cookie's name for env: one per environment, so
// that a client using two environments keeps two sessions.
func ngCookie(env string) string {
	return "wasmenv_nemo_gym_" + strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, env)
}

func ngDetail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"detail": msg})
}

// ngValidation is FastAPI's 422 for a body that fails its model.
func ngValidation(w http.ResponseWriter, typ string, loc []any, msg string, input any) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{
		{"type": typ, "loc": loc, "msg": msg, "input": input}}})
}

// ngError writes a server error in FastAPI's {"detail": ...} shape.
func ngError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = errf(http.StatusInternalServerError, CodeInternal, "%v", err)
	}
	if ae.retryAfter > 0 {
		w.Header().Set("Retry-After", itoa(ae.retryAfter))
	}
	ngDetail(w, ae.status, ae.msg)
}

// ngBody reads a JSON object body ({} when empty); false when it wrote the
// error.
func (s *Server) ngBody(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	raw, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		ngError(w, err)
		return nil, false
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return map[string]json.RawMessage{}, true
	}
	if err := checkDepth(raw, s.opts.MaxJSONDepth); err != nil {
		ngValidation(w, "json_invalid", []any{"body"}, err.Error(), map[string]any{})
		return nil, false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		ngValidation(w, "json_invalid", []any{"body"}, "JSON decode error: "+jsonMessage(err), map[string]any{})
		return nil, false
	}
	if _, ok := v.(map[string]any); !ok {
		ngValidation(w, "model_attributes_type", []any{"body"}, "Input should be a valid dictionary or object to extract fields from", v)
		return nil, false
	}
	var body map[string]json.RawMessage
	json.Unmarshal(raw, &body)
	return body, true
}

func (s *Server) setNGCookie(w http.ResponseWriter, env, id string) {
	c := &http.Cookie{Name: ngCookie(env), Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if id == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// ngSession is the live episode of the request's session cookie for env.
func (s *Server) ngSession(r *http.Request, env string) *episode {
	c, err := r.Cookie(ngCookie(env))
	if err != nil || c.Value == "" {
		return nil
	}
	e := s.get(r.Context(), c.Value)
	if e == nil || e.env.Name() != env {
		return nil
	}
	return e
}

func (s *Server) ngEnv(w http.ResponseWriter, r *http.Request) (*runtime.Env, bool) {
	env, ok := s.byName[r.PathValue("env")]
	if !ok {
		ngDetail(w, http.StatusNotFound, "Not Found")
	}
	return env, ok
}

func (s *Server) ngSeedSession(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.ngStart(w, r, true); ok {
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// ngStart opens the session's episode for seed_session and the gymnasium
// reset: the body's task and seed, the session's old episode
// closed, the new one's cookie set; false when it wrote the error.
// seedSession refuses a server with a simulated user (simple_agent cannot
// talk to one).
func (s *Server) ngStart(w http.ResponseWriter, r *http.Request, seedSession bool) (*episode, bool) {
	env, ok := s.ngEnv(w, r)
	if !ok {
		return nil, false
	}
	body, ok := s.ngBody(w, r)
	if !ok {
		return nil, false
	}
	task, seed, ok := ngTaskSeed(w, env, body)
	if !ok {
		return nil, false
	}
	if seedSession && s.hidesGoal() {
		ngError(w, errf(http.StatusConflict, CodeSimulatedUser, "this server plays a simulated user, which simple_agent cannot talk to: use NeMo Gym's gymnasium_agent (POST %s%s/reset, then /step)", nemoGymPrefix, env.Name()))
		return nil, false
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	if old := s.ngSession(r, env.Name()); old != nil {
		s.ngDelete(old)
	}
	eps, err := s.newGroup(ctx, env.Name(), task, seed, 1, 0)
	if err != nil {
		ngError(w, err)
		return nil, false
	}
	s.setNGCookie(w, env.Name(), eps[0].id)
	return eps[0], true
}

func (s *Server) ngDelete(e *episode) {
	if s.table.remove(e.id) {
		if !e.close(context.Background()) {
			return
		}
		s.stats.deleted.Add(1)
	}
}

func errNoSession(env string) *apiError {
	return errf(http.StatusBadRequest, CodeNoSession, "no session: POST %s%s/seed_session first, and send its cookie", nemoGymPrefix, env)
}

func (s *Server) ngTool(w http.ResponseWriter, r *http.Request) {
	env, ok := s.ngEnv(w, r)
	if !ok {
		return
	}
	name := r.PathValue("tool")
	if !hasTool(env, name) {
		ngDetail(w, http.StatusNotFound, "Not Found")
		return
	}
	body, ok := s.ngBody(w, r)
	if !ok {
		return
	}
	e := s.ngSession(r, env.Name())
	if e == nil {
		ngError(w, errNoSession(env.Name()))
		return
	}
	s.setNGCookie(w, env.Name(), e.id)
	args, _ := json.Marshal(body)
	ctx, cancel := s.callCtx(r)
	defer cancel()
	res, err := s.callEpisode(ctx, e, name, args)
	if err != nil {
		ngError(w, err)
		return
	}
	w.Header().Set("X-Wasmenv-Outcome", string(res.Outcome))
	status := http.StatusOK
	switch {
	case res.Outcome == runtime.OutcomeInvalidArgs:
		// FastAPI's answer to arguments its model refuses; the agent
		// hands the body to the model all the same.
		ngValidation(w, "invalid_args", []any{"body"}, res.Content, json.RawMessage(args))
		return
	case res.Outcome.EnvFault():
		status = http.StatusInternalServerError
	}
	ngRaw(w, status, res.Content)
}

// ngRaw writes a tool's output as the body: JSON as JSON, other text as
// text, so the model reads exactly what the tool wrote.
func ngRaw(w http.ResponseWriter, status int, content string) {
	ct := "text/plain; charset=utf-8"
	if json.Valid([]byte(content)) {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", itoa(len(content)))
	w.WriteHeader(status)
	w.Write([]byte(content))
}

func (s *Server) ngVerify(w http.ResponseWriter, r *http.Request) {
	env, ok := s.ngEnv(w, r)
	if !ok {
		return
	}
	body, ok := s.ngBody(w, r)
	if !ok {
		return
	}
	for _, f := range []string{"responses_create_params", "response"} {
		if _, has := body[f]; !has {
			ngValidation(w, "missing", []any{"body", f}, "Field required", body)
			return
		}
	}
	var resp ngResponse
	if err := json.Unmarshal(body["response"], &resp); err != nil {
		ngValidation(w, "model_type", []any{"body", "response"}, "Input should be a valid response object: "+jsonMessage(err), body["response"])
		return
	}
	e := s.ngSession(r, env.Name())
	if e == nil {
		ngError(w, errNoSession(env.Name()))
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	sc, err := func() (runtime.Score, error) {
		if err := e.acquire(ctx); err != nil {
			return runtime.Score{}, errf(http.StatusServiceUnavailable, CodeBusy, "the session's episode is busy: %v", err)
		}
		defer e.release()
		if e.ep == nil {
			return runtime.Score{}, errNoEpisode(e.id)
		}
		if e.ep.Task() == nil {
			return runtime.Score{}, errf(http.StatusConflict, CodeNoTask, "the session has no task to verify: seed it with \"task\"")
		}
		var answer *string
		if a, ok := resp.answer(); ok {
			answer = &a
		}
		var sc runtime.Score
		err := s.withSlot(ctx, func() (err error) { sc, err = e.ep.Score(ctx, answer); return err })
		if err != nil && !isBusy(err) {
			err = scoreError(err)
		}
		return sc, err
	}()
	if err != nil {
		s.setNGCookie(w, env.Name(), e.id)
		ngError(w, err)
		return
	}
	s.stats.scores.Add(1)
	s.ngDelete(e)
	s.setNGCookie(w, env.Name(), "")
	out := make(map[string]any, len(body)+1)
	for k, v := range body {
		out[k] = v
	}
	out["reward"] = sc.Reward
	writeJSON(w, http.StatusOK, out)
}

// ngResponse is the part of NeMoGymResponse (an OpenAI Responses API
// response) that verify and step read: the output items.
type ngResponse struct {
	Output []struct {
		Type      string `json:"type"`
		Role      string `json:"role"`
		Name      string `json:"name"`      // of a function_call
		Arguments string `json:"arguments"` // of a function_call: JSON text
		CallID    string `json:"call_id"`   // of a function_call
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
}

// answer is the text of the last assistant message; false when there is none.
func (r *ngResponse) answer() (string, bool) {
	for i := len(r.Output) - 1; i >= 0; i-- {
		o := r.Output[i]
		if o.Type != "message" || (o.Role != "" && o.Role != "assistant") {
			continue
		}
		var b strings.Builder
		for _, c := range o.Content {
			if c.Type == "output_text" || c.Type == "text" {
				b.WriteString(c.Text)
			}
		}
		return b.String(), true
	}
	return "", false
}

func hasTool(env *runtime.Env, name string) bool {
	for _, t := range env.Tools() {
		if t.Name == name {
			return true
		}
	}
	return false
}
