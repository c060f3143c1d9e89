package fleet_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// listener is an HTTP server on 127.0.0.1 that records every request's
// Authorization header and answers 500: an endpoint a job names that the
// workers were never told to reach.
type listener struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newListener(t *testing.T) *listener {
	l := &listener{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.URL.Path+" Authorization="+r.Header.Get("Authorization"))
		l.mu.Unlock()
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *listener) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// Issue 37, finding 1: a job chooses neither where a worker's credential
// goes nor which of the worker's variables is sent. A real worker process
// with secrets in its environment runs jobs that name a listener on
// 127.0.0.1 as their policy's, simulated user's and LLM synthesis's
// endpoint, and a raw job that names a secret's variable: each fails, and
// the listener receives no request at all. A job at the endpoint the
// worker allows gets the worker's own key and nothing else.
func TestWorkerSendsCredentialsOnlyWhereItsConfigAllows(t *testing.T) {
	const secret, envKey, workerKey = "aws-secret-of-the-worker", "sk-from-openai-api-key", "sk-the-worker-chose"
	t.Setenv("WASMENV_TEST_AWS_SECRET", secret)
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("WASMENV_TEST_WORKER_KEY", workerKey)
	store := bundle(t, "store")
	model, evil := newFakeLLM(t), newListener(t)
	url := startServer(t)
	opts := fleet.Options{AckWait: 2 * time.Second, MaxDeliver: 1}
	startWorkerProcess(t, url, opts, "--allow-endpoint", model.srv.URL+"/v1", "--api-key-env", "WASMENV_TEST_WORKER_KEY")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	forbidden := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, &fleet.Error{Code: fleet.CodeDeadLetter}) || !strings.Contains(err.Error(), "allow-endpoint") {
			t.Errorf("%s: got %v, want a dead letter naming --allow-endpoint", what, err)
		}
	}

	policyAtListener := model.spec(1)
	policyAtListener.Tasks = "cancel-split-payment"
	policyAtListener.Policy.BaseURL = evil.srv.URL + "/v1"
	_, err := (&fleet.Driver{NC: connect(t, url), Options: opts}).Run(ctx, []*fleet.BundleFile{store}, policyAtListener, plan(t, policyAtListener, store), &memOutput{})
	forbidden("a policy at the listener", err)

	userAtListener := model.spec(1)
	userAtListener.Tasks = "cancel-split-payment"
	userAtListener.Policy.User, userAtListener.Policy.UserURL = "openai", evil.srv.URL+"/v1"
	_, err = (&fleet.Driver{NC: connect(t, url), Options: opts}).Run(ctx, []*fleet.BundleFile{store}, userAtListener, plan(t, userAtListener, store), &memOutput{})
	forbidden("a simulated user at the listener", err)

	cfg := llmConfig(evil.srv.URL, t.TempDir())
	refs, specs, err := fleet.PlanSynthLLM(cfg, []llm.Scenario{{Name: "library-lending", Title: "Library lending", Description: "Loans."}})
	if err != nil {
		t.Fatal(err)
	}
	err = (&fleet.Driver{NC: connect(t, url), Options: opts}).RunSynthLLM(ctx, specs, refs, fleet.CreateSynthLLMOutput(cfg.OutDir, refs))
	forbidden("an LLM synthesis at the listener", err)

	// A job as an attacker writes it: the allowed endpoint, and the
	// variable of the worker's secret as the key's (the field of 9d42a3d).
	job := map[string]any{"run": "forged", "index": 0, "env": "library-lending", "synth_llm": map[string]any{
		"scenario": map[string]any{"name": "library-lending", "title": "t"}, "base_url": model.srv.URL + "/v1",
		"model": "fake", "api_key_env": "WASMENV_TEST_AWS_SECRET", "retries": -1}}
	body, _ := json.Marshal(job)
	js, _ := jetstream.New(connect(t, url))
	if _, err := js.Publish(ctx, "wasmenv.jobs.forged", body); err != nil {
		t.Fatal(err)
	}
	waitJobEnd(ctx, t, js, "forged")

	// The endpoint the worker allows, its own key.
	honest := model.spec(1)
	honest.Tasks = "cancel-split-payment"
	if _, err := (&fleet.Driver{NC: connect(t, url), Options: opts}).Run(ctx, []*fleet.BundleFile{store}, honest, plan(t, honest, store), &memOutput{}); err != nil {
		t.Fatal(err)
	}

	if got := evil.requests(); len(got) != 0 {
		t.Errorf("the listener received %d requests: %q", len(got), got)
	}
	auth := model.authorizations()
	for header, n := range auth {
		if header != "Bearer "+workerKey {
			t.Errorf("the allowed endpoint received Authorization %q (%d times): want only the worker's own key", header, n)
		}
	}
	if auth["Bearer "+workerKey] == 0 {
		t.Errorf("the allowed endpoint never received the worker's key: %v", auth)
	}
}

// waitJobEnd waits until a job of run has a result or a dead letter.
func waitJobEnd(ctx context.Context, t *testing.T, js jetstream.JetStream, run string) {
	t.Helper()
	for ctx.Err() == nil {
		for stream, subject := range map[string]string{fleet.StreamResults: "wasmenv.results." + run, fleet.StreamDead: "wasmenv.dead." + run} {
			if s, err := js.Stream(ctx, stream); err == nil {
				if _, err := s.GetLastMsgForSubject(ctx, subject); err == nil {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no job of run %s ended", run)
}
