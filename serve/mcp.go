package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/runtime"
)

type mcpEpisodeKey struct{}

// serveMCP is the streamable-HTTP MCP endpoint of one episode. The MCP
// handler runs stateless (every POST is self-contained, no Mcp-Session-Id),
// so nothing outlives a request and a deleted episode leaves nothing behind.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e := s.get(r.Context(), id)
	if e == nil {
		writeError(w, errNoEpisode(id))
		return
	}
	e.touch()
	s.mcp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpEpisodeKey{}, e)))
}

// mcpServerFor gives the MCP SDK the server of the request's episode.
func (s *Server) mcpServerFor(r *http.Request) *mcp.Server {
	e, _ := r.Context().Value(mcpEpisodeKey{}).(*episode)
	if e == nil {
		return nil
	}
	e.mcpOnce.Do(func() {
		m := &e.env.Bundle.Manifest
		srv := mcp.NewServer(&mcp.Implementation{Name: "wasmenv-" + m.Name, Version: m.Version},
			&mcp.ServerOptions{Instructions: m.Rules, Logger: s.opts.Logger})
		for _, t := range m.Tools {
			srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, s.mcpTool(e, t.Name))
		}
		if talksToUser(e) {
			srv.AddTool(messageUserTool, s.mcpMessageUser(e))
		}
		e.mcpSrv = srv
	})
	return e.mcpSrv
}

// mcpTool runs a tool on the episode; tool errors are isError results.
func (s *Server) mcpTool(e *episode, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		res, err := s.callEpisode(ctx, e, name, args)
		var ae *apiError
		if errors.As(err, &ae) && ae.code == CodeUnknownEpisode {
			return toolErrorResult("Error: episode " + e.id + " no longer exists"), nil
		}
		if err != nil {
			// The episode's failure, not the tool's: a protocol error, not
			// a result the agent would read as its own mistake.
			return nil, err
		}
		return mcpResult(res), nil
	}
}

func toolErrorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// mcpResult is a tool result with its outcome in _meta, so that an MCP
// client can tell an environment failure from the agent's mistake.
func mcpResult(res runtime.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}, IsError: res.IsError,
		Meta: mcp.Meta{"outcome": string(res.Outcome)}}
}
