package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/wasmenv/wasmenv/runtime"
)

// OpenEnv's MCP endpoints (RFC 003): POST /mcp takes one JSON-RPC 2.0
// request and answers it in the body (no MCP initialize handshake, no
// server-sent events); GET /mcp upgrades to a WebSocket that carries the
// same requests, one episode per connection. Methods: tools/list,
// tools/call, and OpenEnv's openenv/session/create and
// openenv/session/close; a session is an episode, its session_id the
// episode id. A full MCP client (initialize, streamable HTTP) uses
// /v1/episodes/{id}/mcp instead.

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcServerError    = -32000
)

type rpcRequest struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type rpcParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	SessionID string          `json:"session_id"`
	// For openenv/session/create and for a request without session_id.
	Env  string `json:"env"`
	Task string `json:"task"`
	Seed int64  `json:"seed"`
}

func rpcResult(id, result any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "result": result}
}

func rpcError(id any, code int, msg string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}}
}

// parseRPC decodes a request; the second return is the error answer.
func parseRPC(raw []byte) (rpcRequest, rpcParams, map[string]any) {
	var req rpcRequest
	var p rpcParams
	if err := json.Unmarshal(raw, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return req, p, rpcError(nil, rpcParseError, "Parse error: "+jsonMessage(err))
		}
		return req, p, rpcError(nil, rpcInvalidRequest, "Invalid request: "+jsonMessage(err))
	}
	if req.Method == "" {
		return req, p, rpcError(req.ID, rpcInvalidRequest, "Invalid request: no method")
	}
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return req, p, rpcError(req.ID, rpcInvalidParams, "Params must be an object: "+jsonMessage(err))
		}
	}
	return req, p, nil
}

// mcpMethod answers tools/list or tools/call on a locked episode. As the
// MCP specification has it, an unknown tool is a protocol error (-32602);
// arguments that fail the schema, a tool's own error and an environment
// failure are results with isError, so the model sees them.
func (s *Server) mcpMethod(ctx context.Context, e *episode, req rpcRequest, p rpcParams) map[string]any {
	switch req.Method {
	case "tools/list":
		if talksToUser(e) {
			tools := make([]any, 0, len(e.env.Tools())+1)
			for _, t := range e.env.Tools() {
				tools = append(tools, t)
			}
			return rpcResult(req.ID, map[string]any{"tools": append(tools, messageUserTool)})
		}
		return rpcResult(req.ID, map[string]any{"tools": e.env.Tools()})
	case "tools/call":
		if p.Name == "" {
			return rpcError(req.ID, rpcInvalidParams, "Invalid params: missing 'name'")
		}
		if p.Name == MessageUserTool && talksToUser(e) {
			return s.rpcMessageUser(ctx, e, req, p)
		}
		res, err := s.doCall(ctx, e, p.Name, p.Arguments)
		if err != nil {
			return rpcError(req.ID, rpcServerError, err.Error())
		}
		if res.Outcome == runtime.OutcomeUnknownTool {
			return rpcError(req.ID, rpcInvalidParams, "Unknown tool: "+p.Name)
		}
		// The outcome in _meta, as on the per-episode MCP endpoint.
		return rpcResult(req.ID, map[string]any{"content": []oeTextContent{{Type: "text", Text: res.Content}}, "isError": res.IsError,
			"_meta": map[string]any{"outcome": res.Outcome}})
	}
	return rpcError(req.ID, rpcMethodNotFound, "Method not found: "+req.Method)
}

// oeMCP serves POST /mcp.
func (s *Server) oeMCP(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := checkDepth(raw, s.opts.MaxJSONDepth); err != nil {
		writeJSON(w, http.StatusOK, rpcError(nil, rpcInvalidRequest, err.Error()))
		return
	}
	ctx, cancel := s.callCtx(r)
	defer cancel()
	writeJSON(w, http.StatusOK, s.mcpHTTP(ctx, raw))
}

func (s *Server) mcpHTTP(ctx context.Context, raw []byte) map[string]any {
	req, p, bad := parseRPC(raw)
	if bad != nil {
		return bad
	}
	switch req.Method {
	case "openenv/session/create":
		eps, err := s.newGroup(ctx, p.Env, p.Task, p.Seed, 1, 0)
		if err != nil {
			return rpcError(req.ID, rpcServerError, err.Error())
		}
		res := map[string]any{"session_id": eps[0].id}
		if eps[0].hasUser {
			res["opening"] = eps[0].opening // the simulated user's first words
		}
		return rpcResult(req.ID, res)
	case "openenv/session/close":
		if p.SessionID == "" {
			return rpcError(req.ID, rpcInvalidParams, "Invalid params: 'session_id' is required")
		}
		e := s.get(ctx, p.SessionID)
		if e == nil || !s.table.remove(p.SessionID) {
			return rpcError(req.ID, rpcInvalidParams, "Unknown session_id: "+p.SessionID)
		}
		if !e.close(ctx) {
			go e.close(context.Background())
		}
		s.stats.deleted.Add(1)
		return rpcResult(req.ID, map[string]any{"session_id": p.SessionID, "closed": true})
	case "tools/list", "tools/call":
	default:
		return rpcError(req.ID, rpcMethodNotFound, "Method not found: "+req.Method)
	}
	id := p.SessionID
	if id == "" {
		// Stateless, as OpenEnv's: a throwaway episode for this request.
		eps, err := s.newGroup(ctx, p.Env, p.Task, p.Seed, 1, 0)
		if err != nil {
			return rpcError(req.ID, rpcServerError, err.Error())
		}
		defer func() {
			if s.table.remove(eps[0].id) {
				eps[0].close(context.Background())
			}
		}()
		id = eps[0].id
	} else if s.get(ctx, id) == nil {
		return rpcError(req.ID, rpcInvalidParams, "Unknown session_id: "+id)
	}
	e, release, err := s.use(ctx, id)
	if err != nil {
		return rpcError(req.ID, rpcServerError, err.Error())
	}
	defer release()
	return s.mcpMethod(ctx, e, req, p)
}

// oeMCPSocket serves GET /mcp: JSON-RPC over a WebSocket, one episode per
// connection (env, task and seed from the URL query), deleted at the end;
// the same cap, idle timeout and client quota as /ws.
func (s *Server) oeMCPSocket(w http.ResponseWriter, r *http.Request) {
	s.serveSocket(w, r, func(ws *wsSession, ctx context.Context, data []byte) (any, bool) {
		return ws.mcp(ctx, data), false
	})
}
