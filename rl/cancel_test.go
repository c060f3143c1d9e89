package rl_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	wrt "github.com/wasmenv/wasmenv/runtime"
)

// slowPolicy calls tools like Random but waits on every other turn until
// the run is cancelled, as a model server would mid-request.
type slowPolicy struct {
	random  rl.Random
	started chan struct{}
	once    sync.Once
}

func (p *slowPolicy) Act(ctx context.Context, t *rl.Turn) (rl.Reply, error) {
	if t.Number == 1 {
		p.once.Do(func() { close(p.started) })
		<-ctx.Done()
		return rl.Reply{}, ctx.Err()
	}
	return p.random.Act(ctx, t)
}

// A cancelled run returns promptly with the context's error, closes every
// episode it opened, leaves no goroutine behind and writes no partial group.
func TestCancelClosesEverything(t *testing.T) {
	env := rltest.Load(t, "store")
	before := runtime.NumGoroutine()
	var mu sync.Mutex
	var episodes []*wrt.Episode
	rl.SetEpisodeHook(func(ep *wrt.Episode) {
		mu.Lock()
		episodes = append(episodes, ep)
		mu.Unlock()
	})
	defer rl.SetEpisodeHook(nil)

	ctx, cancel := context.WithCancel(context.Background())
	p := &slowPolicy{started: make(chan struct{})}
	var out rltest.Collect
	done := make(chan error, 1)
	go func() {
		_, err := rl.Run(ctx, []*wrt.Env{env}, p, rl.Config{Group: 8, Concurrency: 40}, &out)
		done <- err
	}()
	<-p.started
	for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(episodes)
		mu.Unlock()
		if n >= 10 { // several rollouts are mid-episode
			break
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v", err)
	}
	if len(out.Groups) != 0 {
		t.Errorf("%d groups written after cancel", len(out.Groups))
	}
	mu.Lock()
	n := len(episodes)
	for _, ep := range episodes {
		if _, err := ep.Call(context.Background(), "get_order", []byte(`{"order_id":"#W1002"}`)); err == nil {
			t.Fatal("an episode is still open after the run")
		}
	}
	mu.Unlock()
	if n < 10 {
		t.Fatalf("only %d episodes opened before the cancel", n)
	}
	// Goroutines wind down asynchronously (HTTP keep-alives, timers).
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, g, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%d episodes opened and closed", n)
}
