package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/coder/websocket"
)

// OpenEnv WebSocket error codes (openenv.core.env_server.types.WSErrorCode).
const (
	wsInvalidJSON     = "INVALID_JSON"
	wsUnknownType     = "UNKNOWN_TYPE"
	wsValidationError = "VALIDATION_ERROR"
	wsExecutionError  = "EXECUTION_ERROR"
	wsCapacityReached = "CAPACITY_REACHED"
	wsSessionError    = "SESSION_ERROR"
)

type wsMsg struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// wsSession is one /ws connection: it owns at most one episode at a time,
// registered in the table like any other, and deleted when the socket ends.
type wsSession struct {
	s  *Server
	id string // current episode, "" before the first reset
	// defaults from the URL query: env, task, seed, max_steps, result_format
	env, task string
	seed      int64
	maxSteps  int
	format    string
}

func newWSSession(s *Server, r *http.Request) *wsSession {
	q := r.URL.Query()
	ws := &wsSession{s: s, env: q.Get("env"), task: q.Get("task"), format: q.Get("result_format")}
	ws.seed, _ = strconv.ParseInt(q.Get("seed"), 10, 64)
	ws.maxSteps, _ = strconv.Atoi(q.Get("max_steps"))
	return ws
}

// oeWebSocket serves OpenEnv's /ws protocol: messages {"type": "reset" |
// "step" | "state" | "close" | "mcp", "data": {...}}, answers {"type":
// "observation" | "state" | "mcp" | "error", "data": {...}}.
func (s *Server) oeWebSocket(w http.ResponseWriter, r *http.Request) {
	s.serveSocket(w, r, (*wsSession).handle)
}

// serveSocket runs one WebSocket session, /ws or GET /mcp, under the same
// limits: the MaxWebSockets cap, the idle timeout, the read limit, and the
// requesting client's identity, so that the session's episodes count
// against that client's quota and no other client can reach them. The
// session's episode is deleted when the socket ends.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request, handle func(*wsSession, context.Context, []byte) (any, bool)) {
	c, ok := s.acceptSocket(w, r, s.opts.MaxBodyBytes)
	if !ok {
		return
	}
	defer s.wsRelease()
	ws := newWSSession(s, r)
	// The server's context ends the session at Close; the client's name
	// comes from the request (whose own context ends with the hijack).
	ctx, cancel := context.WithCancel(withClient(s.ctx, clientFrom(r.Context())))
	defer cancel()
	defer ws.drop()
	for {
		_, data, err := s.wsRead(ctx, c)
		if err != nil {
			if errors.Is(err, errWSIdle) {
				c.Close(websocket.StatusPolicyViolation, err.Error())
			} else if ctx.Err() != nil {
				c.Close(websocket.StatusGoingAway, "server shutting down")
			} else {
				c.CloseNow()
			}
			return
		}
		resp, done := handle(ws, ctx, data)
		if resp != nil {
			b, _ := json.Marshal(resp)
			if err := s.wsWrite(ctx, c, b); err != nil {
				c.CloseNow()
				return
			}
		}
		if done {
			c.Close(websocket.StatusNormalClosure, "")
			return
		}
	}
}

func wsError(code, msg string) map[string]any {
	return map[string]any{"type": "error", "data": map[string]any{"message": msg, "code": code}}
}

func wsErrorFrom(err error) map[string]any {
	var ae *apiError
	if errors.As(err, &ae) {
		switch ae.status {
		case http.StatusTooManyRequests:
			return wsError(wsCapacityReached, ae.msg)
		case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
			return wsError(wsValidationError, ae.msg)
		case http.StatusNotFound:
			return wsError(wsSessionError, ae.msg)
		}
		return wsError(wsExecutionError, ae.msg)
	}
	return wsError(wsExecutionError, err.Error())
}

// drop deletes the session's episode.
func (ws *wsSession) drop() {
	if ws.id == "" {
		return
	}
	if e := ws.s.table.get(ws.id); e != nil && ws.s.table.remove(ws.id) {
		e.close(context.Background())
		ws.s.stats.deleted.Add(1)
	}
	ws.id = ""
}

func (ws *wsSession) handle(ctx context.Context, raw []byte) (resp any, done bool) {
	s := ws.s
	if err := checkDepth(raw, s.opts.MaxJSONDepth); err != nil {
		return wsError(wsValidationError, err.Error()), false
	}
	var m wsMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		return wsError(wsInvalidJSON, "Invalid JSON: "+jsonMessage(err)), false
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	switch m.Type {
	case "reset":
		req := oeResetReq{Env: ws.env, Task: ws.task, Seed: &ws.seed, MaxSteps: ws.maxSteps, ResultFormat: ws.format}
		if err := decodeBytes(m.Data, &req, s.opts.MaxJSONDepth, false); err != nil {
			return wsErrorFrom(err), false
		}
		if req.EpisodeID != "" && req.EpisodeID != ws.id {
			req.EpisodeID = "" // a session resets only its own episode
		}
		if req.EpisodeID == "" && ws.id != "" {
			req.EpisodeID = ws.id
		}
		e, res, err := s.oeResetEpisode(ctx, req)
		if err != nil {
			return wsErrorFrom(err), false
		}
		if e.id != ws.id {
			ws.drop()
			ws.id = e.id
		}
		return map[string]any{"type": "observation", "data": res}, false
	case "step":
		var a action
		if err := decodeBytes(m.Data, &a, s.opts.MaxJSONDepth, false); err != nil {
			return wsErrorFrom(err), false
		}
		if ws.id == "" {
			if resp, _ := ws.handle(ctx, []byte(`{"type":"reset"}`)); ws.id == "" {
				return resp, false
			}
		}
		e, release, err := s.use(ctx, ws.id)
		if err != nil {
			return wsErrorFrom(err), false
		}
		res, err := func() (oeResult, error) { defer release(); return s.oeStepLocked(ctx, e, &a, "") }()
		if err != nil {
			return wsErrorFrom(err), false
		}
		return map[string]any{"type": "observation", "data": res}, false
	case "state":
		if ws.id == "" {
			return map[string]any{"type": "state", "data": map[string]any{"episode_id": nil, "step_count": 0}}, false
		}
		e, release, err := s.use(ctx, ws.id)
		if err != nil {
			return wsErrorFrom(err), false
		}
		st := func() map[string]any { defer release(); return s.oeStateOf(ctx, e) }()
		return map[string]any{"type": "state", "data": st}, false
	case "close":
		return nil, true
	case "mcp":
		return map[string]any{"type": "mcp", "data": ws.mcp(ctx, m.Data)}, false
	}
	return wsError(wsUnknownType, "Unknown message type: "+strconv.Quote(m.Type)), false
}

// mcp answers a JSON-RPC tools/list or tools/call on the session's
// episode, created by a reset when there is none yet.
func (ws *wsSession) mcp(ctx context.Context, raw []byte) map[string]any {
	req, p, bad := parseRPC(raw)
	if bad != nil {
		return bad
	}
	ctx, cancel := context.WithTimeout(ctx, ws.s.opts.CallTimeout)
	defer cancel()
	if ws.id == "" {
		if resp, _ := ws.handle(ctx, []byte(`{"type":"reset"}`)); ws.id == "" {
			msg := "cannot start an episode"
			if m, ok := resp.(map[string]any); ok {
				msg += ": " + toString(m["data"])
			}
			return rpcError(req.ID, rpcServerError, msg)
		}
	}
	e, release, err := ws.s.use(ctx, ws.id)
	if err != nil {
		return rpcError(req.ID, rpcServerError, err.Error())
	}
	defer release()
	return ws.s.mcpMethod(ctx, e, req, p)
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
