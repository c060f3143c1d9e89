package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// The simulated user. A task's instruction may be a customer's private
// goal (τ-bench: "do not reveal it to the agent", "if the agent asks for
// confirmation, do not say yes"): handing it to the agent as its prompt
// would give away what the policy's confirmation step is meant to check.
// With Options.User set the server plays that customer the way `wasmenv
// rollout --user` does, with the same rl.User: the user opens each
// episode, the agent's words reach it as a step (action type "message"),
// its reply is the step's observation, and its stop token ends the
// episode, the agent's last words being the answer that is scored. The
// instruction and the persona stay on the server.

// userOpenings has the simulated user open each episode of a group; each
// episode gets its own opening, as each rollout does in `wasmenv rollout`.
func (s *Server) userOpenings(ctx context.Context, eps []*episode) error {
	task := eps[0].ep.Task()
	if s.opts.User == nil || task == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8) // a group of 1024 must not open 1024 model requests at once
	for _, e := range eps {
		g.Go(func() error {
			opening, err := s.opts.User.Reply(ctx, task, nil)
			if err != nil {
				return errUser(err)
			}
			e.opening, e.convo, e.hasUser = opening, []rl.Message{{Role: rl.RoleUser, Content: opening}}, true
			return nil
		})
	}
	return g.Wait()
}

func errUser(err error) *apiError {
	return errf(http.StatusBadGateway, CodeUserFailed, "the simulated user failed: %v", err)
}

// openingOf is what opens the episode's conversation for the agent: the
// simulated user's first message, or without a user the task's instruction.
func (e *episode) openingOf() string {
	if e.hasUser {
		return e.opening // set at creation, never changed
	}
	if t := e.ep.Task(); t != nil {
		return t.Instruction
	}
	return ""
}

// hidesGoal reports whether the tasks' instructions and personas stay on
// the server: they are the simulated user's to play.
func (s *Server) hidesGoal() bool { return s.opts.User != nil }

// sayLocked hands the agent's message to the simulated user of a locked
// episode and returns the user's reply and whether it ended the
// conversation. A failed reply changes nothing: the agent may say it again.
func (s *Server) sayLocked(ctx context.Context, e *episode, content string) (string, bool, error) {
	task := e.ep.Task()
	switch {
	case s.opts.User == nil:
		return "", false, errf(http.StatusConflict, CodeNoUser, "this server plays no simulated user (start it with --user); end the episode with {\"type\": \"final\", \"answer\": TEXT}")
	case task == nil || e.convo == nil:
		return "", false, errf(http.StatusConflict, CodeNoUser, "episode %s has no task, so no user to talk to", e.id)
	}
	convo := append(e.convo[:len(e.convo):len(e.convo)], rl.Message{Role: rl.RoleAssistant, Content: content})
	reply, err := s.opts.User.Reply(ctx, task, convo)
	if err != nil {
		return "", false, errUser(err)
	}
	e.convo = append(convo, rl.Message{Role: rl.RoleUser, Content: reply})
	return reply, strings.Contains(reply, s.stopToken()), nil
}

func (s *Server) stopToken() string {
	if s.opts.StopToken != "" {
		return s.opts.StopToken
	}
	return rl.DefaultStopToken
}

// publicTask is a task as a client may see it: without the user's goal
// when the server plays the user.
func (s *Server) publicTask(t *envpkg.Task) (instruction, persona string) {
	if s.hidesGoal() {
		return "", ""
	}
	return t.Instruction, t.Persona
}

// MessageUserTool is the MCP tool an agent talks to the simulated user
// with (an MCP client has no other way to say something to the user): its
// result is the user's reply; the user's stop ends the episode, and the
// result's _meta then holds "terminated" and the "reward".
const MessageUserTool = "message_user"

var messageUserTool = &mcp.Tool{
	Name:        MessageUserTool,
	Description: "Send a message to the customer you are helping; returns their reply. When they have nothing more to ask, the conversation (and the task) ends.",
	InputSchema: map[string]any{"type": "object", "required": []string{"content"}, "additionalProperties": false,
		"properties": map[string]any{"content": map[string]any{"type": "string", "description": "What you say to the customer."}}},
}

// mcpMessageUser is the message step, as an MCP tool.
func (s *Server) mcpMessageUser(e *episode) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Content *string `json:"content"`
		}
		if req.Params == nil || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Content == nil {
			return toolErrorResult("Error: message_user needs {\"content\": TEXT}"), nil
		}
		ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
		if err := e.acquire(ctx); err != nil {
			return mcpResult(timeoutResult(busyEpisode)), nil
		}
		defer e.release()
		if e.ep == nil {
			return toolErrorResult("Error: episode " + e.id + " no longer exists"), nil
		}
		out, err := s.doStep(ctx, e, &action{Type: "message", Content: in.Content})
		if err != nil {
			return toolErrorResult("Error: " + err.Error()), nil
		}
		meta := mcp.Meta{"outcome": string(runtime.OutcomeOK), "terminated": out.Terminated, "truncated": out.Truncated}
		if out.Terminated || out.Truncated {
			meta["reward"] = out.Reward
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Observation}}, Meta: meta}, nil
	}
}

// talksToUser reports whether an episode's MCP tools include message_user:
// it has a simulated user, and the bundle has no tool of that name.
func talksToUser(e *episode) bool { return e.hasUser && !hasTool(e.env, MessageUserTool) }

// rpcMessageUser is the message step as OpenEnv's MCP tools/call (POST
// /mcp, GET /mcp), on a locked episode: the result is the user's reply,
// _meta as on the per-episode MCP endpoint.
func (s *Server) rpcMessageUser(ctx context.Context, e *episode, req rpcRequest, p rpcParams) map[string]any {
	var in struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(p.Arguments, &in) != nil || in.Content == nil {
		return rpcResult(req.ID, map[string]any{"content": []oeTextContent{{Type: "text", Text: "Error: message_user needs {\"content\": TEXT}"}},
			"isError": true, "_meta": map[string]any{"outcome": runtime.OutcomeInvalidArgs}})
	}
	out, err := s.doStep(ctx, e, &action{Type: "message", Content: in.Content})
	if err != nil {
		return rpcError(req.ID, rpcServerError, err.Error())
	}
	meta := map[string]any{"outcome": runtime.OutcomeOK, "terminated": out.Terminated, "truncated": out.Truncated}
	if out.Terminated || out.Truncated {
		meta["reward"] = out.Reward
	}
	return rpcResult(req.ID, map[string]any{"content": []oeTextContent{{Type: "text", Text: out.Observation}}, "isError": false, "_meta": meta})
}
