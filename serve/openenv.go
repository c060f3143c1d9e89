package serve

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/wasmenv/wasmenv/runtime"
)

// OpenEnv compatibility. OpenEnv's HTTPEnvServer (meta-pytorch/OpenEnv,
// openenv.core.env_server.http_server) serves POST /reset, POST /step,
// GET /state, GET /schema, GET /metadata, GET /health and the /ws session;
// reset and step answer {observation, reward, done, metadata?}. Here an
// action is OpenEnv's MCP action: {"type": "call_tool", "tool_name",
// "arguments"} or {"type": "list_tools"}, plus {"type": "final", "answer"}
// to end the episode. OpenEnv's HTTP /reset and /step are stateless (a fresh
// environment per request); here /reset creates an episode (or resets the
// one named by episode_id) and /step acts on the episode named by
// episode_id, or on a throwaway episode when there is none.

type oeResetReq struct {
	Seed      *int64 `json:"seed"`
	EpisodeID string `json:"episode_id"`
	Env       string `json:"env"`
	Task      string `json:"task"`
	MaxSteps  int    `json:"max_steps"`
	// ResultFormat is how call_tool observations carry a result: "mcp"
	// (default) or "text". Kept by the episode.
	ResultFormat string `json:"result_format"`
}

// oeResult is OpenEnv's ResetResponse / StepResponse.
type oeResult struct {
	Observation map[string]any `json:"observation"`
	Reward      *float64       `json:"reward"`
	Done        bool           `json:"done"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

func resetObservation(e *episode) oeResult {
	obs := map[string]any{"episode_id": e.id, "env": e.env.Name(), "rules": e.env.Bundle.Manifest.Rules}
	if t := e.ep.Task(); t != nil {
		obs["task"], obs["instruction"] = t.ID, e.openingOf()
	}
	return oeResult{Observation: obs, Metadata: map[string]any{"episode_id": e.id, "seed": e.ep.Seed()}}
}

// oeResetEpisode resets the episode named by req.EpisodeID when it is live,
// and otherwise creates one. It returns the episode unlocked.
func (s *Server) oeResetEpisode(ctx context.Context, req oeResetReq) (*episode, oeResult, error) {
	if !validResultFormat(req.ResultFormat) {
		return nil, oeResult{}, errResultFormat(req.ResultFormat)
	}
	if req.EpisodeID != "" {
		if e := s.get(ctx, req.EpisodeID); e != nil && (req.Env == "" || req.Env == e.env.Name()) &&
			(req.Task == "" || e.task == req.Task) {
			e, release, err := s.use(ctx, req.EpisodeID)
			if err != nil {
				return nil, oeResult{}, err
			}
			defer release()
			if err := e.resetLocked(req.Seed); err != nil {
				return nil, oeResult{}, errf(http.StatusConflict, CodeResetFailed, "reset: %v", err)
			}
			if req.ResultFormat != "" {
				e.oeText.Store(req.ResultFormat == resultText)
			}
			return e, resetObservation(e), nil
		}
	}
	var seed int64
	if req.Seed != nil {
		seed = *req.Seed
	}
	eps, err := s.newGroup(ctx, req.Env, req.Task, seed, 1, req.MaxSteps)
	if err != nil {
		return nil, oeResult{}, err
	}
	eps[0].oeText.Store(req.ResultFormat == resultText)
	return eps[0], resetObservation(eps[0]), nil
}

func errResultFormat(f string) error {
	return errf(http.StatusUnprocessableEntity, CodeValidation, "result_format %q: want %q (the MCP call result object, the default) or %q (the bare text)", f, resultMCP, resultText)
}

func (s *Server) oeReset(w http.ResponseWriter, r *http.Request) {
	var req oeResetReq
	if err := s.decodeJSON(w, r, &req, false); err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	_, res, err := s.oeResetEpisode(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

type oeStepReq struct {
	Action    *action `json:"action"`
	EpisodeID string  `json:"episode_id"`
	// For a stateless step (no episode_id): which environment and task
	// the throwaway episode runs, and its seed.
	Env  string `json:"env"`
	Task string `json:"task"`
	Seed int64  `json:"seed"`
	// ResultFormat overrides the episode's result format for this step.
	ResultFormat string `json:"result_format"`
}

// oeStepLocked runs an OpenEnv action on a locked episode. format is the
// result format ("" for the episode's own).
func (s *Server) oeStepLocked(ctx context.Context, e *episode, a *action, format string) (oeResult, error) {
	meta := map[string]any{"episode_id": e.id}
	switch a.Type {
	case "", "call_tool", "final", "message":
	case "list_tools":
		if e.done {
			return oeResult{}, errf(http.StatusConflict, CodeEpisodeDone, "episode %s has ended; reset it to start again", e.id)
		}
		tools := make([]map[string]any, 0, len(e.env.Tools()))
		for _, t := range e.env.Tools() {
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.InputSchema})
		}
		zero := 0.0
		return oeResult{Observation: map[string]any{"tools": tools}, Reward: &zero, Done: e.done, Metadata: meta}, nil
	default:
		return oeResult{}, errf(http.StatusUnprocessableEntity, CodeValidation,
			"unknown action type %q (want \"call_tool\", \"list_tools\", \"message\" or \"final\")", a.Type)
	}
	if format == "" && e.oeText.Load() {
		format = resultText
	}
	out, err := s.doStep(ctx, e, a)
	var ae *apiError
	if err != nil && a.Type != "final" && errors.As(err, &ae) && ae.code == CodeBusy {
		// No call slot came free in time: the call never reached the tool
		// and the step does not count. OpenEnv's transport_error.
		name := a.Name
		if name == "" {
			name = a.ToolName
		}
		te := &oeToolError{ErrorType: oeTransportError, Message: ae.msg}
		meta["error_type"], meta["step"] = te.ErrorType, e.steps
		return oeResult{Observation: map[string]any{"tool_name": name, "result": nil, "error": te}, Metadata: meta}, nil
	}
	if err != nil {
		return oeResult{}, err
	}
	var obs map[string]any
	switch a.Type {
	case "final":
		obs = map[string]any{"answer": a.Answer}
	case "message":
		obs = map[string]any{"user": out.Observation}
	default:
		res := runtime.Result{Content: out.Observation, IsError: out.Info.IsError, Outcome: out.Info.Outcome}
		obs = map[string]any{"tool_name": out.Info.Tool, "result": nil, "error": nil}
		if te := oeErrorFor(res); te != nil {
			obs["error"], meta["error_type"] = te, te.ErrorType
		} else {
			obs["result"] = oeResultOf(res, format)
		}
		meta["outcome"] = res.Outcome
	}
	meta["is_error"], meta["step"] = out.Info.IsError, out.Info.Step
	meta["terminated"], meta["truncated"] = out.Terminated, out.Truncated
	if out.Info.Score != nil {
		meta["score"] = out.Info.Score
	}
	reward := out.Reward
	return oeResult{Observation: obs, Reward: &reward, Done: out.Terminated || out.Truncated, Metadata: meta}, nil
}

func (s *Server) oeStep(w http.ResponseWriter, r *http.Request) {
	var req oeStepReq
	if err := s.decodeJSON(w, r, &req, false); err != nil {
		writeError(w, err)
		return
	}
	if req.Action == nil {
		writeError(w, errf(http.StatusUnprocessableEntity, CodeValidation, "step needs an action"))
		return
	}
	if !validResultFormat(req.ResultFormat) {
		writeError(w, errResultFormat(req.ResultFormat))
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	if req.EpisodeID == "" {
		// OpenEnv's stateless step: a fresh episode for this one action.
		eps, err := s.newGroup(ctx, req.Env, req.Task, req.Seed, 1, 0)
		if err != nil {
			writeError(w, err)
			return
		}
		defer func() {
			if s.table.remove(eps[0].id) {
				eps[0].close(context.Background())
			}
		}()
		req.EpisodeID = eps[0].id
	}
	e, release, err := s.use(ctx, req.EpisodeID)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	res, err := s.oeStepLocked(ctx, e, req.Action, req.ResultFormat)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.status == http.StatusBadRequest {
			ae.status, ae.code = http.StatusUnprocessableEntity, CodeValidation
		}
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) oeState(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("episode_id")
	if id == "" {
		writeJSON(w, http.StatusOK, map[string]any{"episode_id": nil, "step_count": 0})
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	e, release, err := s.use(ctx, id)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	writeJSON(w, http.StatusOK, s.oeStateOf(ctx, e))
}

var oeSchemas = map[string]any{
	"action": map[string]any{
		"title": "WasmenvAction", "type": "object",
		"properties": map[string]any{
			"type":      map[string]any{"type": "string", "enum": []string{"call_tool", "list_tools", "final", "message"}, "default": "call_tool"},
			"tool_name": map[string]any{"type": "string", "description": "tool to call (type call_tool)"},
			"arguments": map[string]any{"type": "object", "description": "tool arguments, checked against the tool's inputSchema"},
			"answer":    map[string]any{"type": []string{"string", "null"}, "description": "final answer (type final)"},
			"content":   map[string]any{"type": "string", "description": "what the agent says to the simulated user (type message; a server started with --user)"},
			"metadata":  map[string]any{"type": "object"},
		},
	},
	"observation": map[string]any{
		"title": "WasmenvObservation", "type": "object", "additionalProperties": false,
		"description": "reset: episode_id, env, rules, task?, instruction?; call_tool: tool_name, result, error; list_tools: tools; final: answer; message: user",
		"properties": map[string]any{
			"episode_id":  map[string]any{"type": "string"},
			"env":         map[string]any{"type": "string"},
			"rules":       map[string]any{"type": "string"},
			"task":        map[string]any{"type": "string"},
			"instruction": map[string]any{"type": "string"},
			"user":        map[string]any{"type": "string", "description": "the simulated user's reply to a message step"},
			"tool_name":   map[string]any{"type": "string"},
			"result": map[string]any{
				"description": "what the tool returned, its own errors included (is_error); null when error is set. " +
					"The MCP call result object by default; the bare text with result_format \"text\"",
				"oneOf": []any{
					map[string]any{"type": "null"},
					map[string]any{"type": "string"},
					map[string]any{
						"type": "object", "additionalProperties": false,
						"required": []string{"content", "structured_content", "meta", "data", "is_error"},
						"properties": map[string]any{
							"content": map[string]any{"type": "array", "items": map[string]any{
								"type": "object", "required": []string{"type", "text"}, "additionalProperties": false,
								"properties": map[string]any{"type": map[string]any{"const": "text"}, "text": map[string]any{"type": "string"}},
							}},
							"structured_content": map[string]any{"type": []string{"object", "null"}, "description": "the result when it is a JSON object"},
							"meta":               map[string]any{"type": "null"},
							"data":               map[string]any{"description": "the result decoded from JSON, else its text"},
							"is_error":           map[string]any{"type": "boolean", "description": "the tool returned an error (a business rule)"},
						},
					},
				},
			},
			"error": map[string]any{
				"description": "a failure of the call itself, not the tool's answer (OpenEnv's ToolError)",
				"oneOf": []any{
					map[string]any{"type": "null"},
					map[string]any{
						"type": "object", "additionalProperties": false, "required": []string{"error_type", "message"},
						"properties": map[string]any{
							"error_type": map[string]any{"enum": oeErrorTypes},
							"message":    map[string]any{"type": "string"},
						},
					},
				},
			},
			"tools": map[string]any{"type": "array", "description": "for list_tools", "items": map[string]any{
				"type": "object", "required": []string{"name", "description", "input_schema"}, "additionalProperties": false,
				"properties": map[string]any{"name": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"},
					"input_schema": map[string]any{"type": "object"}},
			}},
			"answer":   map[string]any{"type": []string{"string", "null"}, "description": "for final"},
			"done":     map[string]any{"type": "boolean"},
			"reward":   map[string]any{"type": []string{"number", "null"}},
			"metadata": map[string]any{"type": "object"},
		},
	},
	"state": map[string]any{
		"title": "WasmenvState", "type": "object", "additionalProperties": false,
		"properties": map[string]any{
			"episode_id": map[string]any{"type": []string{"string", "null"}},
			"step_count": map[string]any{"type": "integer", "minimum": 0},
			"env":        map[string]any{"type": "string"},
			"task":       map[string]any{"type": "string"},
			"seed":       map[string]any{"type": "integer"},
			"done":       map[string]any{"type": "boolean"},
			"state_hash": map[string]any{"type": "string"},
			"state_hash_error": map[string]any{"type": "string",
				"description": "why there is no state_hash: out of SQLite memory or time, or no call slot within the call timeout"},
		},
	},
}

func (s *Server) oeSchema(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, oeSchemas)
}

func (s *Server) oeMetadata(w http.ResponseWriter, r *http.Request) {
	if len(s.envs) == 1 {
		m := &s.envs[0].Bundle.Manifest
		writeJSON(w, http.StatusOK, map[string]any{"name": m.Name, "description": m.Description, "version": m.Version})
		return
	}
	names := make([]string, len(s.envs))
	for i, e := range s.envs {
		names[i] = e.Name()
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": "wasmenv",
		"description": "environments: " + strings.Join(names, ", ") + " (name one with \"env\" on reset)"})
}
