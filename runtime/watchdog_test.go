package runtime

import (
	"context"
	"sync"
	"testing"
	"time"
)

// disarm racing the watchdog's check: whichever wins, the call's fate is
// told the same way to both sides. When the watchdog stopped the call,
// disarm reports it (the call is undone and the instance not reused);
// when disarm won, the watchdog did not stop it. A real instance of the
// mini module is the target, so interrupt is the engine's own.
func TestWatchdogDisarmRacesCheck(t *testing.T) {
	e := loadEnv(t, "mini")
	ctx := context.Background()
	inst, err := e.getInstance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.discard()
	// Driven by hand (no ticker goroutine), with deadlines that are due at
	// once, so that every check races the disarm.
	w := &watchdog{tick: time.Millisecond, ticks: 0, insts: map[*instance]struct{}{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.now.Store(1)
	w.add(inst)
	stoppedByDog, keptByCall := 0, 0
	for i := range 2000 {
		inst.stop.Store(0)
		w.arm(inst, ctx)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var stopped bool
		wg.Add(2)
		go func() { defer wg.Done(); <-start; spin(i % 3); w.check(w.now.Load() + 2) }()
		go func() { defer wg.Done(); <-start; spin(i % 40); stopped = w.disarm(inst, ctx) }()
		close(start)
		wg.Wait()
		byDog := inst.stop.Load() != 0
		if stopped != byDog {
			t.Fatalf("disarm says stopped=%v, the watchdog stopped it: %v", stopped, byDog)
		}
		if inst.armed.Load() != 0 {
			t.Fatal("still armed after disarm")
		}
		if byDog {
			stoppedByDog++
		} else {
			keptByCall++
		}
	}
	t.Logf("watchdog won %d races, disarm %d", stoppedByDog, keptByCall)
	if stoppedByDog == 0 || keptByCall == 0 {
		t.Logf("only one side ever won: the race was not exercised both ways on this machine")
	}
}

// spin burns a few hundred nanoseconds per n, to shift which side of a
// race runs first.
func spin(n int) {
	x := 0
	for i := range n * 100 {
		x += i
	}
	_ = x
}

// After a second without calls the watchdog parks; the next call wakes it,
// so a runaway call is still stopped at its deadline. Twice, to cover a
// park after a wake.
func TestWatchdogWakesFromParkToStopACall(t *testing.T) {
	e := loadEnv(t, "mini") // call_timeout 500ms
	for round := range 2 {
		deadline := time.Now().Add(5 * time.Second)
		for !e.dog.parked.Load() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !e.dog.parked.Load() {
			t.Fatalf("round %d: the watchdog did not park after a second idle", round)
		}
		ep := newEpisode(t, e, "", 1)
		r := call(t, ep, "abuse", `{"mode":"loop"}`)
		if r.Outcome != OutcomeTimeout {
			t.Fatalf("round %d: a loop after the park: %+v", round, r)
		}
		if r := call(t, ep, "get", `{"key":"a"}`); r.IsError {
			t.Fatalf("round %d: the episode after the stop: %s", round, r.Content)
		}
	}
}
