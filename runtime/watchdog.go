package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Why the watchdog stopped a call.
const (
	stopTimeout = 1
	stopCancel  = 2
)

// watchdog enforces call time limits and caller cancellation without
// per-call timers or goroutines: a call arms its instance with a deadline
// in ticks, and one goroutine per Env advances the tick and interrupts
// instances past their deadline, or whose caller's context is done. It
// parks after a second without calls.
type watchdog struct {
	tick  time.Duration
	ticks uint64 // call timeout in ticks
	now   atomic.Uint64

	mu    sync.Mutex
	insts map[*instance]struct{}

	busy   atomic.Int64 // when the last call was armed, in ticks
	parked atomic.Bool
	wake   chan struct{}
	done   chan struct{}
}

const genShift = 40

func newWatchdog(timeout time.Duration) *watchdog {
	tick := min(max(timeout/50, time.Millisecond), 10*time.Millisecond)
	w := &watchdog{tick: tick, ticks: uint64((timeout + tick - 1) / tick),
		insts: map[*instance]struct{}{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.now.Store(1)
	go w.run()
	return w
}

func (w *watchdog) add(inst *instance) {
	w.mu.Lock()
	w.insts[inst] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) remove(inst *instance) {
	w.mu.Lock()
	delete(w.insts, inst)
	w.mu.Unlock()
}

func (w *watchdog) close() { close(w.done) }

// arm starts watching a call on inst.
func (w *watchdog) arm(inst *instance, ctx context.Context) {
	inst.gen++
	now := w.now.Load()
	inst.armed.Store(inst.gen<<genShift | (now + w.ticks + 1))
	if ctx.Done() != nil {
		inst.mu.Lock()
		inst.ctx = ctx
		inst.mu.Unlock()
	}
	w.busy.Store(int64(now))
	if w.parked.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// disarm ends watching; it reports whether the watchdog stopped the call
// (then the instance must not be reused, even if the call returned).
func (w *watchdog) disarm(inst *instance, ctx context.Context) bool {
	armed := inst.armed.Load()
	stopped := armed == 0 || !inst.armed.CompareAndSwap(armed, 0)
	if ctx.Done() != nil {
		inst.mu.Lock()
		inst.ctx = nil
		inst.mu.Unlock()
	}
	return stopped || inst.stop.Load() != 0
}

func (w *watchdog) run() {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
		}
		now := w.now.Add(1)
		idle := uint64(time.Second / w.tick)
		if w.check(now) == 0 && now-uint64(w.busy.Load()) > idle {
			w.parked.Store(true)
			// arm stores busy, then reads parked: one of us sees the other.
			if now-uint64(w.busy.Load()) > idle {
				t.Stop()
				select {
				case <-w.done:
					return
				case <-w.wake:
				}
				t.Reset(w.tick)
			}
			w.parked.Store(false)
			continue
		}
	}
}

// check stops the calls past their deadline or cancelled, and returns how
// many calls are armed.
func (w *watchdog) check(now uint64) int {
	n := 0
	w.mu.Lock()
	for inst := range w.insts {
		armed := inst.armed.Load()
		if armed == 0 {
			continue
		}
		n++
		why := uint32(0)
		if armed&(1<<genShift-1) <= now {
			why = stopTimeout
		} else {
			inst.mu.Lock()
			if inst.ctx != nil && inst.ctx.Err() != nil {
				why = stopCancel
			}
			inst.mu.Unlock()
		}
		if why != 0 && inst.armed.CompareAndSwap(armed, 0) && inst.stop.CompareAndSwap(0, why) {
			inst.g.interrupt()
		}
	}
	w.mu.Unlock()
	return n
}
