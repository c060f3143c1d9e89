package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// interopDir holds the Node interop scripts and their pinned dependencies.
var interopDir = filepath.Join("..", "clients", "interop")

// node returns the node binary, installing the interop dependencies with
// `npm ci` when they are missing. It skips only when node or npm is absent.
func node(t *testing.T) string {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the MCP TypeScript SDK and ws interop tests (CI has it)")
	}
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm is not installed: skipping the interop tests (CI has it)")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = interopDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", interopDir, err, out)
		}
	}
	return nodeBin
}

func runNode(t *testing.T, nodeBin, script string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, append([]string{script}, args...)...)
	cmd.Dir = interopDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// TestInteropMCPTypeScript: the official MCP TypeScript SDK
// (StreamableHTTPClientTransport) lists and calls tools on one episode.
func TestInteropMCPTypeScript(t *testing.T) {
	nodeBin := node(t)
	ts := newTestServer(t, Options{Token: "interop"})
	ids := ts.create(`{"n":2}`)
	out := runNode(t, nodeBin, "mcp.mjs", ts.url+"/v1/episodes/"+ids[0]+"/mcp", "interop")
	if !strings.Contains(out, `"ok":true`) {
		t.Fatalf("mcp.mjs: %s", out)
	}
	_, m := ts.do("GET", "/v1/episodes/"+ids[0]+"/diff", "")
	if !strings.Contains(toJSON(m), "typescript") {
		t.Fatalf("the TypeScript client's put is not in the episode: %v", m)
	}
	_, m = ts.do("GET", "/v1/episodes/"+ids[1]+"/diff", "")
	if strings.Contains(toJSON(m), "typescript") {
		t.Fatalf("another episode of the group changed: %v", m)
	}
}

// TestInteropOpenEnvWebSocket: an OpenEnv-style reset/step/state session
// over /ws with the ws package.
func TestInteropOpenEnvWebSocket(t *testing.T) {
	nodeBin := node(t)
	ts := newTestServer(t, Options{Token: "interop"})
	out := runNode(t, nodeBin, "openenv_ws.mjs", ts.url, "interop")
	if !strings.Contains(out, `"ok":true`) || !strings.Contains(out, `"reward":1`) {
		t.Fatalf("openenv_ws.mjs: %s", out)
	}
	deadline := time.Now().Add(2 * time.Second)
	for ts.srv.Episodes() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Fatalf("%d episodes left after the session closed", n)
	}
}
