package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

type envInfo struct {
	Name        string              `json:"name"`
	Version     string              `json:"version"`
	Description string              `json:"description"`
	Rules       string              `json:"rules,omitempty"`
	Tasks       int                 `json:"tasks"`
	Tools       []envpkg.Tool       `json:"tools"`
	OpenAITools []envpkg.OpenAITool `json:"openai_tools"`
}

func (s *Server) listEnvs(w http.ResponseWriter, r *http.Request) {
	out := make([]envInfo, len(s.envs))
	for i, e := range s.envs {
		m := &e.Bundle.Manifest
		out[i] = envInfo{Name: m.Name, Version: m.Version, Description: m.Description, Rules: m.Rules,
			Tasks: len(e.Bundle.Tasks), Tools: m.Tools, OpenAITools: envpkg.OpenAIToolsFor(m.Tools)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"envs": out})
}

type taskInfo struct {
	ID          string `json:"id"`
	Instruction string `json:"instruction"` // "" when the server plays the user: the goal is the user's
	Persona     string `json:"persona,omitempty"`
	Checks      int    `json:"checks"`
	HasAnswer   bool   `json:"has_answer"`
	Reward      string `json:"reward"`
}

func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	env, err := s.env(r.PathValue("env"))
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]taskInfo, len(env.Bundle.Tasks))
	for i, t := range env.Bundle.Tasks {
		reward := t.Reward
		if reward == "" {
			reward = envpkg.RewardChecks
		}
		instruction, persona := s.publicTask(&t)
		out[i] = taskInfo{ID: t.ID, Instruction: instruction, Persona: persona,
			Checks: len(t.Checks), HasAnswer: t.Answer != nil, Reward: reward}
	}
	writeJSON(w, http.StatusOK, map[string]any{"env": env.Name(), "tasks": out})
}

type createReq struct {
	Env      string `json:"env"`
	Task     string `json:"task"`
	Seed     int64  `json:"seed"`
	N        int    `json:"n"`
	MaxSteps int    `json:"max_steps"`
}

type createResp struct {
	Group       string `json:"group"`
	Env         string `json:"env"`
	Task        string `json:"task,omitempty"`
	Seed        int64  `json:"seed"`
	MaxSteps    int    `json:"max_steps,omitempty"`
	Instruction string `json:"instruction,omitempty"`
	// Rules is the environment's policy: the system message `wasmenv
	// rollout` sends, so that every client builds the same prompt.
	Rules    string   `json:"rules,omitempty"`
	Episodes []string `json:"episodes"`
	// Openings, when the server plays a simulated user, is each episode's
	// first user message, in the order of Episodes; Instruction is then
	// left out (it is the user's private goal).
	Openings []string `json:"openings,omitempty"`
}

func (s *Server) createEpisodes(w http.ResponseWriter, r *http.Request) {
	var req createReq
	if err := s.decodeJSON(w, r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	if req.N < 0 {
		writeError(w, badRequest("n must be positive"))
		return
	}
	eps, err := s.newGroup(r.Context(), req.Env, req.Task, req.Seed, req.N, req.MaxSteps)
	if err != nil {
		writeError(w, err)
		return
	}
	resp := createResp{Group: eps[0].group, Env: eps[0].env.Name(), Task: req.Task, Seed: req.Seed,
		MaxSteps: eps[0].maxSteps, Rules: eps[0].env.Bundle.Manifest.Rules, Episodes: make([]string, len(eps))}
	for i, e := range eps {
		resp.Episodes[i] = e.id
		if e.hasUser {
			resp.Openings = append(resp.Openings, e.opening)
		}
	}
	if resp.Openings == nil {
		resp.Instruction = eps[0].openingOf()
	}
	writeJSON(w, http.StatusCreated, resp)
}

type episodeInfo struct {
	ID       string  `json:"id"`
	Group    string  `json:"group"`
	Env      string  `json:"env"`
	Task     string  `json:"task,omitempty"`
	Seed     int64   `json:"seed"`
	Steps    int     `json:"steps"`
	MaxSteps int     `json:"max_steps,omitempty"`
	Done     bool    `json:"done"`
	AgeS     float64 `json:"age_s"`
}

func (e *episode) info() episodeInfo {
	in := episodeInfo{ID: e.id, Group: e.group, Env: e.env.Name(), Seed: e.ep.Seed(), Steps: e.steps,
		MaxSteps: e.maxSteps, Done: e.done, AgeS: time.Since(e.created).Seconds()}
	if t := e.ep.Task(); t != nil {
		in.Task = t.ID
	}
	return in
}

func (s *Server) getEpisode(w http.ResponseWriter, r *http.Request) {
	_, e, release, ok := s.lockEpisode(w, r)
	if !ok {
		return
	}
	defer release()
	writeJSON(w, http.StatusOK, e.info())
}

func (s *Server) deleteEpisode(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e := s.get(r.Context(), id)
	if e == nil || !s.table.remove(id) {
		writeError(w, errNoEpisode(id))
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	if !e.close(ctx) {
		// Busy past the deadline: it is unregistered already; close it
		// when the call in flight ends.
		go e.close(context.Background())
	}
	s.stats.deleted.Add(1)
	writeJSON(w, http.StatusOK, map[string]string{"deleted": id})
}

type callReq struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	body, err := readCallBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		writeError(w, err)
		return
	}
	defer putBody(body) // req.Arguments may refer to it until the response is written
	var req callReq
	if err := decodeCallReq(body.Bytes(), &req, s.opts.MaxJSONDepth, false); err != nil {
		writeError(w, err)
		return
	}
	ctx, e, release, ok := s.lockForCall(w, r, func(res runtime.Result) { writeJSON(w, http.StatusOK, res) })
	if !ok {
		return
	}
	defer release()
	res, err := s.callHeld(ctx, e, req.Name, req.Arguments)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// doCall runs one tool call on a locked episode.
func (s *Server) doCall(ctx context.Context, e *episode, name string, args json.RawMessage) (runtime.Result, error) {
	start := time.Now()
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return runtime.Result{}, errf(http.StatusServiceUnavailable, CodeBusy, "no call slot free: %v", ctx.Err())
	}
	res, err := e.ep.Call(ctx, name, rawArgs(args))
	<-s.slots
	s.stats.lat.Observe(time.Since(start))
	s.stats.calls.Add(1)
	if err != nil {
		return res, episodeError(e.id, err)
	}
	if res.IsError {
		s.stats.toolErrs.Add(1)
	}
	return res, nil
}

type scoreReq struct {
	Answer *string `json:"answer"`
}

func (s *Server) score(w http.ResponseWriter, r *http.Request) {
	var req scoreReq
	if err := s.decodeJSON(w, r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	ctx, e, release, ok := s.lockEpisode(w, r)
	if !ok {
		return
	}
	defer release()
	if e.ep.Task() == nil {
		writeError(w, errf(http.StatusConflict, CodeNoTask, "episode %s has no task to score", e.id))
		return
	}
	var sc runtime.Score
	err := s.withSlot(ctx, func() (err error) { sc, err = e.ep.Score(ctx, req.Answer); return err })
	if isBusy(err) {
		writeError(w, err)
		return
	}
	if err != nil {
		writeError(w, scoreError(err))
		return
	}
	s.stats.scores.Add(1)
	writeJSON(w, http.StatusOK, sc)
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	ctx, e, release, ok := s.lockEpisode(w, r)
	if !ok {
		return
	}
	defer release()
	var d runtime.Diff
	var hash string
	err := s.withSlot(ctx, func() (err error) {
		d, hash, err = e.ep.DiffAndHashUpTo(s.opts.MaxResponseBytes)
		return err
	})
	if isBusy(err) {
		writeError(w, err)
		return
	}
	if errors.Is(err, runtime.ErrDiffTooLarge) {
		writeError(w, errf(http.StatusRequestEntityTooLarge, CodeTooLarge, "the diff is over the limit of %d bytes", s.opts.MaxResponseBytes))
		return
	}
	if err != nil {
		writeError(w, stateError(CodeDiffFailed, "diff", err))
		return
	}
	body, err := json.Marshal(map[string]any{"diff": d, "state_hash": hash})
	if err != nil {
		writeError(w, err)
		return
	}
	if len(body) > s.opts.MaxResponseBytes {
		writeError(w, errf(http.StatusRequestEntityTooLarge, CodeTooLarge, "the diff is %d bytes, over the limit of %d", len(body), s.opts.MaxResponseBytes))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

type resetReq struct {
	Seed *int64 `json:"seed"`
}

func (s *Server) reset(w http.ResponseWriter, r *http.Request) {
	var req resetReq
	if err := s.decodeJSON(w, r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	_, e, release, ok := s.lockEpisode(w, r)
	if !ok {
		return
	}
	defer release()
	err := e.resetLocked(req.Seed)
	info := e.info()
	if err != nil {
		writeError(w, errf(http.StatusConflict, CodeResetFailed, "reset: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (e *episode) resetLocked(seed *int64) error {
	var err error
	if seed != nil {
		err = e.ep.ResetSeed(*seed)
	} else {
		err = e.ep.Reset()
	}
	if e.dropped != nil {
		e.dropped() // what the episode wrote is garbage now
	}
	e.steps, e.done = 0, false
	if e.convo != nil {
		e.convo = e.convo[:1] // the user's opening again
	}
	return err
}

// lockEpisode bounds the request by the call timeout and locks the episode
// named in the path. On failure it has written the error and returns false;
// otherwise release unlocks the episode and ends ctx.
func (s *Server) lockEpisode(w http.ResponseWriter, r *http.Request) (ctx context.Context, e *episode, release func(), ok bool) {
	ctx, cancel := s.callCtx(r)
	e, unlock, err := s.use(ctx, r.PathValue("id"))
	if err != nil {
		cancel()
		writeError(w, err)
		return nil, nil, nil, false
	}
	return ctx, e, func() { unlock(); cancel() }, true
}
