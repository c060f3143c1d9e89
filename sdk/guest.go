package sdk

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Dispatch runs tool number tool on JSON arguments, writing the result into e.
// The compiler generates it; tool code never calls it.
type Dispatch func(tool uint32, args []byte, e *Encoder) error

var (
	dispatch Dispatch
	argBuf   []byte
	callEnc  Encoder
)

// SetDispatch installs the generated dispatcher (from the generated main's init).
func SetDispatch(d Dispatch) { dispatch = d }

// RawString writes s to the output as is: a tool's string result is the
// agent's text, not a JSON string.
func (e *Encoder) RawString(s string) { e.sep(); e.buf = append(e.buf, s...) }

// runCall runs one call on argBuf[:n] and returns the framed output:
// status byte, then the result text or the error message.
func runCall(tool, n uint32) (out []byte) {
	callEnc.Reset()
	callEnc.buf = append(callEnc.buf, wire.CallOK)
	defer func() {
		if r := recover(); r != nil {
			callEnc.Reset()
			callEnc.buf = append(callEnc.buf, wire.CallPanic)
			callEnc.buf = fmt.Appendf(callEnc.buf, "tool panicked: %v", r)
			out = callEnc.buf
		}
	}()
	if dispatch == nil {
		panic("no dispatcher installed")
	}
	if int(n) > len(argBuf) {
		n = uint32(len(argBuf))
	}
	err := dispatch(tool, argBuf[:n], &callEnc)
	if err == nil {
		err = callEnc.err
	}
	if err != nil {
		status := byte(wire.CallError)
		if errors.As(err, new(*argError)) {
			status = wire.CallInvalidArgs
		}
		callEnc.Reset()
		callEnc.buf = append(callEnc.buf, status)
		callEnc.buf = append(callEnc.buf, err.Error()...)
	}
	return callEnc.buf
}

// growArgs makes room for n bytes of arguments.
func growArgs(n uint32) []byte {
	if uint32(cap(argBuf)) < n {
		argBuf = make([]byte, n)
	}
	argBuf = argBuf[:n]
	return argBuf
}

// argError is an argument that did not decode: the agent's mistake, which
// the call's status byte tells the host apart from a tool error.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// ArgumentError wraps a decoding error of a call's arguments.
func ArgumentError(err error) error { return &argError{"invalid arguments: " + err.Error()} }

// UnknownField reports an argument the tool does not take.
func UnknownField(k string) error { return &argError{fmt.Sprintf("unexpected argument %q", k)} }

// MissingField reports a required argument that is absent.
func MissingField(k string) error {
	return &argError{fmt.Sprintf("missing required argument %q", k)}
}

// UnknownTool reports a dispatch number the module does not have.
func UnknownTool(n uint32) error { return fmt.Errorf("unknown tool number %d", n) }

// UnsupportedArgument reports an argument type that cannot be decoded.
func UnsupportedArgument(t string) error {
	return fmt.Errorf("arguments of type %s are not supported", t)
}
