package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

func envpkgAnswer(v, m string) envpkg.Answer { return envpkg.Answer{Value: v, Match: m} }

// Each misbehaviour ends that call with a clear error; the process, the
// episode and other episodes carry on.
func TestRunawayToolsEndTheirCallOnly(t *testing.T) { eachEngine(t, testRunawayToolsEndTheirCallOnly) }

func testRunawayToolsEndTheirCallOnly(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	ep := newEpisode(t, e, "", 1)
	other := newEpisode(t, e, "", 1)
	cases := map[string]string{
		"loop":    "ran past",
		"sqlloop": "ran past", // its work limit; on wasmtime, under load, maybe the short wall-clock guard first
		"memory":  "ran out of memory",
		"panic":   "tool panicked: boom",
		"nilmap":  "tool panicked: assignment to entry in nil map",
		"huge":    "over the limit of 65536 bytes",
		"recurse": "", // out of memory, stack overflow or time limit: any clear stop
		"attach":  "ATTACH is not allowed",
		"pragma":  "PRAGMA is not allowed",
		"commit":  "COMMIT is not allowed",
	}
	for mode, want := range cases {
		call(t, ep, "put", `{"key":"a","value":"before-`+mode+`"}`)
		r := call(t, ep, "abuse", `{"mode":"`+mode+`"}`)
		if !r.IsError || !strings.Contains(r.Content, want) || !strings.HasPrefix(r.Content, "Error: ") {
			t.Errorf("%s: %+v", mode, r)
		}
		// The episode still works and kept its earlier state.
		if r := call(t, ep, "get", `{"key":"a"}`); !strings.Contains(r.Content, "before-"+mode) {
			t.Errorf("after %s: %+v", mode, r)
		}
		if err := ep.Reset(); err != nil {
			t.Fatalf("reset after %s: %v", mode, err)
		}
		if r := call(t, ep, "get", `{"key":"a"}`); !strings.Contains(r.Content, "apple") {
			t.Errorf("after %s and reset: %+v", mode, r)
		}
	}
	if r := call(t, other, "list", `{}`); r.IsError {
		t.Fatalf("other episode: %+v", r)
	}
}

// The sandbox env is built without the static checks, so its tool code
// really calls os and net; the runtime must still give it nothing.
func TestSandboxDeniesFilesNetworkEnvironment(t *testing.T) {
	eachEngine(t, testSandboxDeniesFilesNetworkEnvironment)
}

func testSandboxDeniesFilesNetworkEnvironment(t *testing.T, engine string) {
	e := loadEnvWith(t, "sandbox", engine)
	ep := newEpisode(t, e, "", 1)
	for _, tool := range []string{"read_file", "list_dir", "write_file", "dial"} {
		r := call(t, ep, tool, `{}`)
		if !r.IsError {
			t.Errorf("%s escaped: %.200s", tool, r.Content)
		}
	}
	if _, err := os.Stat("/tmp/wasmenv-sandbox-escape"); err == nil {
		os.Remove("/tmp/wasmenv-sandbox-escape")
		t.Error("guest wrote a host file")
	}
	r := call(t, ep, "env", `{}`)
	if r.Content != `{"args":0,"home":"","n":0,"path":""}` {
		t.Errorf("environment visible: %s", r.Content)
	}
}

// Package-level state is refused by the compiler; this shows why: without
// the check, guest memory carries state from one episode to the next through
// a shared instance (a pool of one makes the sharing certain).
func TestGuestMemoryIsWhyPackageStateIsRefused(t *testing.T) {
	eachEngine(t, testGuestMemoryIsWhyPackageStateIsRefused)
}

func testGuestMemoryIsWhyPackageStateIsRefused(t *testing.T, engine string) {
	e, err := LoadBundle(context.Background(), testBundle(t, "sandbox", true), Options{PoolSize: 1, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a := newEpisode(t, e, "", 1)
	call(t, a, "count", `{}`)
	b := newEpisode(t, e, "", 1)
	if r := call(t, b, "count", `{}`); r.Content != "2" {
		t.Fatalf("expected the leak the compiler prevents, got %s", r.Content)
	}
}

// Compiled wasm code is not preemptible by the Go scheduler: a runaway loop
// that never left it would block a garbage collection's stop-the-world, and
// with it the watchdog that should stop the loop, forever. The loop checks
// yield to the scheduler now and then; this runs runaway calls while forcing
// collections, in a child process so that a regression fails instead of
// hanging the test binary.
func TestRunawayLoopDoesNotBlockGC(t *testing.T) { eachEngine(t, testRunawayLoopDoesNotBlockGC) }

func testRunawayLoopDoesNotBlockGC(t *testing.T, engine string) {
	if child := os.Getenv("WASMENV_GC_CHILD"); child != "" {
		if child != engine {
			return
		}
		e := loadEnvWith(t, "mini", engine)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ep := newEpisode(t, e, "", 1)
				if r := call(t, ep, "abuse", `{"mode":"loop"}`); !stoppedAtLimit(r.Content) {
					t.Errorf("loop: %s", r.Content)
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		for {
			select {
			case <-done:
				return
			default:
				goruntime.GC()
			}
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunawayLoopDoesNotBlockGC$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WASMENV_GC_CHILD="+engine)
	out, err := runWithin(cmd, 90*time.Second)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func runWithin(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.Bytes(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return buf.Bytes(), fmt.Errorf("no result after %s: the process hung", d)
	}
}

// stoppedAtLimit reports a call stopped at its work limit (wazero counts
// the guest's loops) or at the wall-clock guard (wasmtime's guest loops).
func stoppedAtLimit(content string) bool {
	return strings.Contains(content, "ran past its work limit") || strings.Contains(content, "ran past the wall-clock guard")
}
