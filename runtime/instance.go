package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one guest module instance. It runs one call at a time.
type instance struct {
	mod    api.Module
	buffer api.Function
	call   api.Function
	stderr headBuffer
	stack  [2]uint64
	ep     *Episode // the episode being served, during a call
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

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// newInstance instantiates the tool module: no files, no network, no
// environment, no arguments; wall time comes from the calling episode.
func (e *Env) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStderr(&inst.stderr).
		WithWalltime(func() (int64, int32) {
			// wazero passes no context here, so the instance remembers the
			// episode it is serving (one call at a time).
			if ep := inst.ep; ep != nil {
				ns := ep.clockNanos()
				return ns / 1e9, int32(ns % 1e9)
			}
			return e.epoch / 1e9, int32(e.epoch % 1e9)
		}, sys.ClockResolution(1000))
	mod, err := e.rt.InstantiateModule(ctx, e.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate tool module: %w", err)
	}
	inst.mod = mod
	inst.buffer = mod.ExportedFunction("wasmenv_buffer")
	inst.call = mod.ExportedFunction("wasmenv_call")
	if inst.buffer == nil || inst.call == nil {
		mod.Close(ctx)
		return nil, errors.New("tool module lacks wasmenv_buffer/wasmenv_call exports (not built by wasmenv?)")
	}
	return inst, nil
}

// trap is a call that ended the instance: a timeout, running out of memory,
// a crash. The instance must not be reused.
type trap struct{ msg string }

func (t *trap) Error() string { return t.msg }

// invoke runs tool number tool with JSON args and returns the status byte
// and the output (copied out of guest memory). A *trap error means the
// instance is gone.
func (inst *instance) invoke(ctx context.Context, e *Env, tool uint32, args []byte) (byte, []byte, error) {
	inst.stack[0] = uint64(len(args))
	if err := inst.buffer.CallWithStack(ctx, inst.stack[:]); err != nil {
		return 0, nil, inst.explain(ctx, e, err)
	}
	ptr := uint32(inst.stack[0])
	if len(args) > 0 && !inst.mod.Memory().Write(ptr, args) {
		return 0, nil, &trap{msg: "tool module returned a bad argument buffer"}
	}
	inst.stack[0], inst.stack[1] = uint64(tool), uint64(len(args))
	if err := inst.call.CallWithStack(ctx, inst.stack[:]); err != nil {
		return 0, nil, inst.explain(ctx, e, err)
	}
	packed := inst.stack[0]
	optr, n := uint32(packed>>32), uint32(packed)
	if n == 0 {
		return 0, nil, &trap{msg: "tool module returned no output"}
	}
	if int(n)-1 > e.limits.MaxOutputBytes {
		return StatusTooLarge, nil, fmt.Errorf("tool output is %d bytes, over the limit of %d bytes", n-1, e.limits.MaxOutputBytes)
	}
	out, ok := inst.mod.Memory().Read(optr, n)
	if !ok {
		return 0, nil, &trap{msg: "tool module returned an output outside its memory"}
	}
	return out[0], append([]byte(nil), out[1:]...), nil
}

// StatusTooLarge marks an output over the limit (not a guest status).
const StatusTooLarge = 0xff

func (inst *instance) explain(ctx context.Context, e *Env, err error) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return &trap{msg: fmt.Sprintf("tool call exceeded its time limit of %s and was stopped", e.callTimeout)}
		case sys.ExitCodeContextCanceled:
			return &trap{msg: "tool call was cancelled"}
		}
	}
	if ctx.Err() != nil {
		return &trap{msg: fmt.Sprintf("tool call exceeded its time limit of %s and was stopped", e.callTimeout)}
	}
	msg := strings.TrimSpace(inst.stderr.String())
	switch {
	case strings.Contains(msg, "out of memory"):
		return &trap{msg: fmt.Sprintf("tool ran out of memory (limit %d MiB) and was stopped", e.limits.MemoryMB)}
	case strings.Contains(msg, "stack overflow") || strings.Contains(msg, "stack exceeds"):
		return &trap{msg: "tool overflowed its stack (runaway recursion) and was stopped"}
	case msg != "":
		first, _, _ := strings.Cut(msg, "\n")
		return &trap{msg: "tool crashed: " + first}
	}
	return &trap{msg: "tool crashed: " + err.Error()}
}
