package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// miniBundleFile builds testdata's mini environment (tools put and get)
// into a bundle file.
func miniBundleFile(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "mini.wasm")
	if _, err := compiler.BuildFile(context.Background(), filepath.Join("..", "testdata", "envs", "mini"), out, compiler.Options{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// startServeWorker runs a serving worker in this process on its own
// connection until the test ends, and returns its id.
func startServeWorker(t *testing.T, url, bundlePath string) string {
	t.Helper()
	return startServeWorkerWith(t, url, bundlePath, serve.Options{})
}

// startServeWorkerWith is startServeWorker with the server's options.
func startServeWorkerWith(t *testing.T, url, bundlePath string, opts serve.Options) string {
	t.Helper()
	env, err := runtime.Load(context.Background(), bundlePath, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := fleet.NewServeID()
	opts.IDPrefix = id + "."
	srv, err := serve.New([]*runtime.Env{env}, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := &fleet.ServeWorker{NC: connect(t, url), ID: id, Handler: srv.Handler(), Episodes: srv.Episodes, Heartbeat: 200 * time.Millisecond}
	// The worker subscribes before its first heartbeat: a test that talks
	// to it at once waits for that beat (or meets "no responders").
	beats, err := connect(t, url).SubscribeSync("wasmenv.serve.load")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Errorf("serve worker %s: %v", id, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; srv.Close(); env.Close() })
	for deadline := time.Now().Add(30 * time.Second); ; {
		m, err := beats.NextMsg(time.Until(deadline))
		if err != nil {
			t.Fatalf("serve worker %s sent no heartbeat: %v", id, err)
		}
		if strings.Contains(string(m.Data), `"`+id+`"`) {
			break
		}
	}
	beats.Unsubscribe()
	return id
}

type gatewayClient struct {
	t   *testing.T
	url string
}

func (c gatewayClient) do(method, path, body string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("%s %s: %d, not JSON: %q", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func ownerOfID(id string) string {
	rest, _ := strings.CutPrefix(id, "ep_")
	w, _, _ := strings.Cut(rest, ".")
	return w
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestGatewayFleet: episodes spread over three in-process workers and one
// real worker process; the HTTP episode API, the per-episode MCP endpoint
// and OpenEnv's HTTP routes work through the gateway; after SIGKILL of the
// process, its episodes answer episode_lost at once and the others carry on.
func TestGatewayFleet(t *testing.T) {
	url := startServer(t)
	mini := miniBundleFile(t)
	local := map[string]bool{}
	for range 3 {
		local[startServeWorker(t, url, mini)] = true
	}
	proc := exec.Command(wasmenvBinary(t), "worker", "--nats", url, "--serve", mini, "-q")
	var plog bytes.Buffer
	proc.Stdout, proc.Stderr = &plog, &plog
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Process.Kill(); proc.Wait() })

	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	hs := httptest.NewServer(gw)
	defer hs.Close()
	c := gatewayClient{t, hs.URL}

	deadline := time.Now().Add(30 * time.Second)
	for len(gw.Workers()) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("workers seen: %v; process log:\n%s", gw.Workers(), plog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	remote := ""
	for id := range gw.Workers() {
		if !local[id] {
			remote = id
		}
	}

	// Episodes by the episode API, OpenEnv's reset and OpenEnv's MCP route.
	var ids []string
	for range 4 {
		code, m := c.do("POST", "/v1/episodes", `{"n":1}`)
		eps, _ := m["episodes"].([]any)
		if code != 201 || len(eps) != 1 {
			t.Fatalf("create: %d %v", code, m)
		}
		ids = append(ids, eps[0].(string))
	}
	for range 4 {
		code, m := c.do("POST", "/reset", `{}`)
		obs, _ := m["observation"].(map[string]any)
		id, _ := obs["episode_id"].(string)
		if code != 200 || id == "" {
			t.Fatalf("reset: %d %v", code, m)
		}
		ids = append(ids, id)
	}
	// OpenEnv's MCP route: a session is created on a worker, then used.
	code, m := c.do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"openenv/session/create","params":{}}`)
	res, _ := m["result"].(map[string]any)
	sid, _ := res["session_id"].(string)
	if code != 200 || sid == "" {
		t.Fatalf("openenv/session/create: %d %v", code, m)
	}
	code, m = c.do("POST", "/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session_id":"`+sid+`","name":"put","arguments":{"key":"me","value":"x"}}}`)
	if code != 200 || m["error"] != nil || !strings.Contains(asJSON(m), "ok") {
		t.Fatalf("/mcp tools/call: %d %v", code, m)
	}
	ids = append(ids, sid)
	// Routes on no episode go to any worker.
	if code, m := c.do("POST", "/step", `{"action":{"type":"list_tools"}}`); code != 200 || !strings.Contains(asJSON(m), `"put"`) {
		t.Fatalf("stateless step: %d %v", code, m)
	}
	if code, m := c.do("GET", "/v1/envs", ""); code != 200 || !strings.Contains(asJSON(m), "mini") {
		t.Fatalf("envs: %d %v", code, m)
	}
	owners := map[string]int{}
	for _, id := range ids {
		owners[ownerOfID(id)]++
	}
	if len(owners) != 4 || owners[remote] == 0 {
		t.Fatalf("episodes not spread over the 4 workers: %v (remote %s)", owners, remote)
	}

	// Each episode writes its own id through one face and reads it back
	// through another; no episode sees another's write.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, id := range ids {
		switch i % 3 {
		case 0:
			code, m := c.do("POST", "/v1/episodes/"+id+"/call", `{"name":"put","arguments":{"key":"me","value":"`+id+`"}}`)
			if code != 200 || m["is_error"] != false {
				t.Fatalf("call put on %s: %d %v", id, code, m)
			}
		case 1:
			code, m := c.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"call_tool","tool_name":"put","arguments":{"key":"me","value":"`+id+`"}}}`)
			if code != 200 || !strings.Contains(asJSON(m), "ok") {
				t.Fatalf("step put on %s: %d %v", id, code, m)
			}
		case 2:
			client := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "0"}, nil)
			sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/v1/episodes/" + id + "/mcp"}, nil)
			if err != nil {
				t.Fatalf("mcp connect %s: %v", id, err)
			}
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "put", Arguments: map[string]any{"key": "me", "value": id}})
			if err != nil || res.IsError {
				t.Fatalf("mcp put on %s: %v %+v", id, err, res)
			}
			sess.Close()
		}
	}
	checkOwn := func(id string) {
		t.Helper()
		code, m := c.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"me"}}`)
		if code != 200 || m["content"] != `{"k":"me","v":"`+id+`","n":0}` {
			t.Fatalf("get on %s: %d %v", id, code, m)
		}
		code, m = c.do("GET", "/state?episode_id="+id, "")
		if code != 200 {
			t.Fatalf("state of %s: %d %v", id, code, m)
		}
	}
	for _, id := range ids {
		checkOwn(id)
	}

	// Kill the worker process: its episodes are lost, on every face, at
	// once; the others carry on.
	if err := proc.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	var lost, alive []string
	for _, id := range ids {
		if ownerOfID(id) == remote {
			lost = append(lost, id)
		} else {
			alive = append(alive, id)
		}
	}
	for _, id := range lost {
		for _, req := range [][3]string{
			{"POST", "/v1/episodes/" + id + "/call", `{"name":"get","arguments":{"key":"me"}}`},
			{"GET", "/v1/episodes/" + id, ""},
			{"POST", "/step", `{"episode_id":"` + id + `","action":{"type":"call_tool","tool_name":"get","arguments":{"key":"me"}}}`},
			{"GET", "/state?episode_id=" + id, ""},
			{"POST", "/v1/episodes/" + id + "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"session_id":"` + id + `","name":"get","arguments":{"key":"me"}}}`},
		} {
			code, m := c.do(req[0], req[1], req[2])
			if code != http.StatusGone || errCode(m) != "episode_lost" {
				t.Errorf("%s %s on a killed worker: %d %v, want 410 episode_lost", req[0], req[1], code, m)
			}
		}
	}
	var wg sync.WaitGroup
	for _, id := range alive {
		wg.Add(1)
		go func() { defer wg.Done(); checkOwn(id) }()
	}
	wg.Wait()
	// New episodes land on the survivors.
	for range 4 {
		code, m := c.do("POST", "/v1/episodes", `{}`)
		eps, _ := m["episodes"].([]any)
		if code != 201 || len(eps) != 1 || !local[ownerOfID(eps[0].(string))] {
			t.Fatalf("create after the kill: %d %v", code, m)
		}
	}
}
