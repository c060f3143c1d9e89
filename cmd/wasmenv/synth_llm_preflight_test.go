package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// endpoint answers GET /v1/models with models and every chat request
// with chatStatus; it counts both.
func endpoint(t *testing.T, models string, chatStatus int) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var lists, chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			lists.Add(1)
			w.Write([]byte(models))
		case "/v1/chat/completions":
			chats.Add(1)
			http.Error(w, `{"error":{"message":"overloaded"}}`, chatStatus)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &lists, &chats
}

// synth llm checks the key, the endpoint and the model before any work,
// and says how to fix each (issue 26: it sat silent ~10 s, then printed
// "after 5 attempts: … no such host").
func TestSynthLLMPreflight(t *testing.T) {
	const listed = `{"object":"list","data":[{"id":"qwen-coder"},{"id":"llama-3"}]}`
	t.Setenv("SYNTH_TEST_KEY", "sk-test")

	// No key in the named variable: refused before the network.
	srv, lists, chats := endpoint(t, listed, 503)
	_, stderr, code := run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "qwen-coder",
		"--api-key-env", "SYNTH_NO_SUCH_KEY", "-o", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "$SYNTH_NO_SUCH_KEY is not set") || !strings.Contains(stderr, `--api-key-env ""`) || lists.Load()+chats.Load() != 0 {
		t.Errorf("no key: exit %d after %d requests: %q", code, lists.Load()+chats.Load(), stderr)
	}

	// A model the endpoint does not serve: the list in the message.
	_, stderr, code = run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "gpt-9",
		"--api-key-env", "SYNTH_TEST_KEY", "-o", t.TempDir())
	if code != 1 || !strings.Contains(stderr, `does not serve the model "gpt-9"; it serves: qwen-coder, llama-3`) || chats.Load() != 0 {
		t.Errorf("unknown model: exit %d, %d chats: %q", code, chats.Load(), stderr)
	}

	// Nothing listening: one quick failure naming --base-url, no retries.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	_, stderr, code = run(t, "", "synth", "llm", "--base-url", dead, "--model", "qwen-coder", "--api-key-env", "", "-o", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "cannot reach the endpoint "+dead) || !strings.Contains(stderr, "--base-url") || strings.Contains(stderr, "attempts") {
		t.Errorf("dead endpoint: exit %d: %q", code, stderr)
	}
}

// --retries 0 means no retry (it meant the default, 4), and each retry is
// shown while it waits.
func TestSynthLLMRetries(t *testing.T) {
	const listed = `{"data":[{"id":"m"}]}`
	srv, _, chats := endpoint(t, listed, 503)
	_, stderr, code := run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "m", "--api-key-env", "",
		"-o", t.TempDir(), "--seed-domain", "libraries", "--scenarios", "1", "--retries", "0")
	if code != 1 || chats.Load() != 1 || strings.Contains(stderr, "retrying") {
		t.Errorf("--retries 0: exit %d after %d chat requests: %q", code, chats.Load(), stderr)
	}

	srv, _, chats = endpoint(t, listed, 503)
	_, stderr, code = run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "m", "--api-key-env", "",
		"-o", t.TempDir(), "--seed-domain", "libraries", "--scenarios", "1", "--retries", "1", "--scenario-stalls", "1")
	if code != 1 || chats.Load() != 2 || !strings.Contains(stderr, "(attempt 1 of 2 failed)") {
		t.Errorf("--retries 1: exit %d after %d chat requests: %q", code, chats.Load(), stderr)
	}
}
