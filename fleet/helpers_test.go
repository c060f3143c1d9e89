package fleet_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

var (
	buildMu sync.Mutex
	built   = map[string]*fleet.BundleFile{}
	binOnce sync.Once
	binPath string
	binErr  error
)

// bundle builds the example environment name once per test binary.
func bundle(t testing.TB, name string) *fleet.BundleFile {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if b := built[name]; b != nil {
		return b
	}
	dir, err := os.MkdirTemp("", "fleet-env-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := envs.Extract(name, src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+".wasm")
	if _, err := compiler.BuildFile(context.Background(), src, out, compiler.Options{}); err != nil {
		t.Fatalf("build %s: %v", name, err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fleet.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	built[name] = b
	return b
}

// wasmenvBinary builds the CLI once per test binary, for real worker
// processes.
func wasmenvBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fleet-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "wasmenv")
		if out, err := exec.Command("go", "build", "-o", binPath, "../cmd/wasmenv").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func plan(t testing.TB, spec *fleet.Spec, files ...*fleet.BundleFile) []fleet.GroupRef {
	t.Helper()
	var bs []*envpkg.Bundle
	for _, f := range files {
		bs = append(bs, f.Bundle)
	}
	refs, err := fleet.Plan(bs, spec.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// reference is the single-process run: rl.Run over every bundle, one
// rollout at a time so that groups are written in plan order, as the file
// `wasmenv rollout -o x.jsonl` writes (toolset records).
func reference(t testing.TB, spec *fleet.Spec, files ...*fleet.BundleFile) []byte {
	t.Helper()
	return referenceWith(t, false, spec, files...)
}

// referenceWith is reference, with every line whole when inline (what a
// worker sends for a group).
func referenceWith(t testing.TB, inline bool, spec *fleet.Spec, files ...*fleet.BundleFile) []byte {
	t.Helper()
	ctx := context.Background()
	var envList []*runtime.Env
	for _, f := range files {
		e, err := runtime.LoadBundle(ctx, f.Bundle, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		envList = append(envList, e)
	}
	cfg, err := spec.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Concurrency, cfg.Tasks = 1, spec.Tasks
	policy, err := spec.Policy.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	out := rl.NewJSONL(&buf)
	out.Inline = inline
	if _, err := rl.Run(ctx, envList, policy, cfg, out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return buf.Bytes()
}

// sentBytes is what the workers send for a run: every group's lines as
// RunGroup makes them.
func sentBytes(t testing.TB, spec *fleet.Spec, files ...*fleet.BundleFile) int {
	t.Helper()
	out := &memOutput{}
	if _, err := fleet.RunLocal(context.Background(), loadAll(t, files...), spec, plan(t, spec, files...), 4, out, nil); err != nil {
		t.Fatal(err)
	}
	return out.buf.Len()
}

// memOutput keeps what is written, as one JSONL file would.
type memOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	closed  bool
	aborted bool
}

func (o *memOutput) WriteGroup(lines []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(lines)
	return nil
}
func (o *memOutput) Close() error { o.closed = true; return nil }
func (o *memOutput) Abort()       { o.aborted = true }

// file is what CreateOutput would have written of the groups kept: the
// same rollouts through rl.JSONL (toolset records once per file).
func (o *memOutput) file(t testing.TB) []byte {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	var buf bytes.Buffer
	out := fleet.FromExporter(rl.NewJSONL(&buf), func() {})
	if err := out.WriteGroup(o.buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fullView reads a rollout file (compact or whole lines, files joined
// with cat) and writes every rollout whole: what a reader sees.
func fullView(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	out := rl.NewJSONL(&buf)
	out.Inline = true
	err := rl.ReadRollouts(bytes.NewReader(data), func(r *rl.Rollout) error { return out.Write([]rl.Rollout{*r}) })
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	return buf.Bytes()
}

// startServer starts an embedded NATS server with JetStream on a free
// loopback port, stopped with the test.
func startServer(t testing.TB) string {
	t.Helper()
	s, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}

func connect(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// startWorkers runs n workers in this process, each with its own
// connection and bundle cache, until the test ends.
func startWorkers(t testing.TB, url string, n int, opts fleet.Options) {
	t.Helper()
	startWorkersWith(t, url, n, 2, opts, true, fleet.Endpoints{}, nil)
}

// startWorkersReaching starts n workers that may reach the endpoints of e.
func startWorkersReaching(t testing.TB, url string, n int, opts fleet.Options, e fleet.Endpoints) {
	t.Helper()
	startWorkersWith(t, url, n, 2, opts, true, e, nil)
}

// startWorkersSlots starts n quiet workers running slots jobs each.
func startWorkersSlots(t testing.TB, url string, n, slots int) {
	t.Helper()
	startWorkersWith(t, url, n, slots, fleet.Options{}, false, fleet.Endpoints{}, nil)
}

func startWorkersWith(t testing.TB, url string, n, slots int, opts fleet.Options, logs bool, e fleet.Endpoints, key []byte) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		w := &fleet.Worker{NC: connect(t, url), Options: opts, Slots: slots, CacheDir: t.TempDir(), Name: fmt.Sprintf("goroutine-%d", i), Endpoints: e, FleetKey: key}
		if logs {
			w.Log = func(format string, args ...any) { t.Logf("worker %d: "+format, append([]any{i}, args...)...) }
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// workerProcess is a real `wasmenv worker` process.
type workerProcess struct {
	cmd *exec.Cmd
	log *syncBuffer
}

// startWorkerProcess starts one; args are more flags (--allow-endpoint).
func startWorkerProcess(t *testing.T, url string, opts fleet.Options, args ...string) *workerProcess {
	t.Helper()
	cmd := exec.Command(wasmenvBinary(t), append([]string{"worker", "--nats", url, "--jobs", "1",
		"--ack-wait", opts.AckWait.String(), "--max-deliver", fmt.Sprint(opts.MaxDeliver), "--cache", t.TempDir()}, args...)...)
	p := &workerProcess{cmd: cmd, log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("worker %d log:\n%s", cmd.Process.Pid, p.log.String())
		}
	})
	return p
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeLLM is an OpenAI-compatible server on 127.0.0.1 that answers every
// request with the same recorded reply. While held, requests wait (and
// each arrival is signalled), which keeps a job running on a worker for as
// long as a test needs.
type fakeLLM struct {
	srv      *httptest.Server
	requests atomic.Int64 // requests answered or held
	mu       sync.Mutex
	auth     map[string]int // Authorization headers received, counted
	hold     chan struct{}
	arrived  chan struct{}
}

const llmReply = `{"id":"r1","object":"chat.completion","model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":"I cannot help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":6,"total_tokens":18}}`

func newFakeLLM(t testing.TB) *fakeLLM {
	f := &fakeLLM{arrived: make(chan struct{}, 64)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that a client gone away ends r.Context()
		f.requests.Add(1)
		f.mu.Lock()
		if f.auth == nil {
			f.auth = map[string]int{}
		}
		f.auth[r.Header.Get("Authorization")]++
		hold := f.hold
		f.mu.Unlock()
		if hold != nil {
			select {
			case f.arrived <- struct{}{}:
			default:
			}
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(llmReply))
	}))
	t.Cleanup(func() {
		f.mu.Lock()
		if f.hold != nil {
			close(f.hold)
			f.hold = nil
		}
		f.mu.Unlock()
		f.srv.Close()
	})
	return f
}

// allow is the endpoint workers are told they may reach.
func (f *fakeLLM) allow() fleet.Endpoints {
	return fleet.Endpoints{Allow: []string{f.srv.URL + "/v1"}}
}

// allowFlag is allow as a worker process's flags.
func (f *fakeLLM) allowFlag() []string { return []string{"--allow-endpoint", f.srv.URL + "/v1"} }

// authorizations returns the Authorization headers received, counted.
func (f *fakeLLM) authorizations() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.auth)
}

// holdRequests makes requests wait until release is called.
func (f *fakeLLM) holdRequests() (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = make(chan struct{})
	h := f.hold
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.hold == h {
			close(h)
			f.hold = nil
		}
	}
}

// waitArrival waits until a held request arrives; a run that ends first
// fails the test.
func (f *fakeLLM) waitArrival(t testing.TB, done <-chan runResult) {
	t.Helper()
	select {
	case <-f.arrived:
	case r := <-done:
		t.Fatalf("the run ended before any policy request: %v", r.err)
	case <-time.After(60 * time.Second):
		t.Fatal("no policy request reached the fake LLM")
	}
}

func (f *fakeLLM) spec(group int) *fleet.Spec {
	return &fleet.Spec{Group: group, Seed: 3, MaxTurns: 4,
		Policy: fleet.PolicySpec{Kind: "openai", BaseURL: f.srv.URL + "/v1", Model: "fake", Temperature: 1, Requests: 8, Retries: 1}}
}
