package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// instance is one guest module instance. It runs one call at a time.
type instance struct {
	env    *Env
	g      guest
	stderr headBuffer
	cur    *toolCall // the call running, if any

	// argCap is how many argument bytes the guest buffer at argPtr holds:
	// the sdk keeps its buffer and only grows it, so a call whose
	// arguments fit skips the wasmenv_buffer round trip.
	argPtr, argCap uint32

	// The watchdog's view of the running call (see watchdog.go).
	armed atomic.Uint64 // call generation<<40 | deadline tick; 0 = idle
	stop  atomic.Uint32 // why the call was stopped: stopTimeout, stopCancel, stopWork
	// yieldsLeft is the running call's guest work left, in sched_yield
	// calls (work.go); only the call's own goroutine touches it.
	yieldsLeft int64
	gen        uint64
	mu         sync.Mutex      // guards ctx
	ctx        context.Context // the caller's context, when it can be cancelled
}

// headBuffer keeps the first bytes the guest wrote to stderr (the Go
// runtime's fatal error message comes first, then stack traces), to explain
// a crash.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const headMax = 1024

func (t *headBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	if room := headMax - len(t.buf); room > 0 {
		t.buf = append(t.buf, p[:min(room, len(p))]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *headBuffer) reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// newInstance instantiates the tool module: no files, no network, no
// environment, no arguments; wall time comes from the calling episode.
func (e *Env) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{env: e}
	g, err := e.eng.instantiate(ctx, inst)
	if err != nil {
		return nil, err
	}
	inst.g = g
	e.dog.add(inst)
	return inst, nil
}

// discard closes an instance that will not be reused.
func (inst *instance) discard() {
	e := inst.env
	e.dog.remove(inst)
	inst.g.close()
	e.live.Add(-1)
	select {
	case e.freed <- struct{}{}:
	default:
	}
}

// clockNanos is the guest's wall clock: the episode clock during a call.
func (inst *instance) clockNanos() int64 {
	if c := inst.cur; c != nil {
		return c.ep.clockNanos()
	}
	return inst.env.epoch
}

// trap is a call that ended the instance: a timeout, running out of memory,
// a crash. The instance must not be reused.
type trap struct {
	outcome Outcome
	msg     string
}

func (t *trap) Error() string { return t.msg }

// invoke runs tool number tool with JSON args and returns the status byte
// and the output (copied out of guest memory). A *trap error means the
// instance is gone.
func (inst *instance) invoke(ctx context.Context, e *Env, tool uint32, args []byte) (byte, string, error) {
	n := uint32(len(args))
	if n > inst.argCap || inst.argCap == 0 {
		ptr, err := inst.g.buffer(ctx, n)
		if err != nil {
			return 0, "", inst.explain(e, err)
		}
		inst.argPtr, inst.argCap = ptr, n
	}
	if n > 0 && !inst.g.write(inst.argPtr, args) {
		return 0, "", &trap{OutcomeTrap, "tool module returned a bad argument buffer"}
	}
	packed, err := inst.g.call(ctx, tool, n)
	if err != nil {
		return 0, "", inst.explain(e, err)
	}
	optr, on := uint32(packed>>32), uint32(packed)
	if on == 0 {
		return 0, "", &trap{OutcomeTrap, "tool module returned no output"}
	}
	if int(on)-1 > e.limits.MaxOutputBytes {
		return statusTooLarge, "", fmt.Errorf("tool output is %d bytes, over the limit of %d bytes", on-1, e.limits.MaxOutputBytes)
	}
	out, ok := inst.g.read(optr, on)
	if !ok {
		return 0, "", &trap{OutcomeTrap, "tool module returned an output outside its memory"}
	}
	return out[0], string(out[1:]), nil
}

// statusTooLarge marks an output over the limit (not a guest status).
const statusTooLarge = 0xff

func (inst *instance) explain(e *Env, err error) error {
	switch inst.stop.Load() {
	case stopWork:
		return &trap{OutcomeTimeout, e.workMessage()}
	case stopTimeout:
		return &trap{OutcomeTimeout, fmt.Sprintf("tool call ran past the wall-clock guard of %s and was stopped (the host is overloaded or wedged; not the tool's or the agent's doing)", e.callWall)}
	case stopCancel:
		return &trap{OutcomeTimeout, "tool call was cancelled"}
	}
	msg := strings.TrimSpace(inst.stderr.String())
	switch {
	case strings.Contains(msg, "out of memory"):
		return &trap{OutcomeOutOfMemory, fmt.Sprintf("tool ran out of memory (limit %d MiB) and was stopped", e.limits.MemoryMB)}
	case strings.Contains(msg, "stack overflow") || strings.Contains(msg, "stack exceeds"):
		return &trap{OutcomeTrap, "tool overflowed its stack (runaway recursion) and was stopped"}
	case msg != "":
		first, _, _ := strings.Cut(msg, "\n")
		return &trap{OutcomeTrap, "tool crashed: " + first}
	}
	if err == nil {
		return &trap{OutcomeTrap, "tool call was stopped"}
	}
	return &trap{OutcomeTrap, "tool crashed: " + err.Error()}
}
