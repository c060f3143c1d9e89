package gen

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Dispatch runs tool number tool on JSON arguments, writing the result into e.
type Dispatch func(tool uint32, args []byte, e *sdk.Encoder) error

var (
	dispatch Dispatch
	argBuf   []byte
	callEnc  sdk.Encoder
)

// SetDispatch installs the generated dispatcher (from the generated main's init).
func SetDispatch(d Dispatch) { dispatch = d }

// runCall runs one call on argBuf[:n] and returns the framed output:
// status byte (wire.Call*), then the result text or the error message.
func runCall(tool, n uint32) (out []byte) {
	sdk.StartCall()
	callEnc.Reset()
	callEnc.Raw([]byte{wire.CallOK})
	defer func() {
		if r := recover(); r != nil {
			callEnc.Reset()
			callEnc.Raw([]byte{wire.CallPanic})
			callEnc.RawString(fmt.Sprintf("tool panicked: %v", r))
			out = callEnc.Bytes()
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
		err = callEnc.Err()
	}
	if err != nil {
		status := byte(wire.CallError)
		if errors.As(err, new(*argError)) {
			status = wire.CallInvalidArgs
		}
		callEnc.Reset()
		callEnc.Raw([]byte{status})
		callEnc.RawString(err.Error())
	}
	return callEnc.Bytes()
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
