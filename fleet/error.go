package fleet

import "fmt"

// Code classifies an Error.
type Code string

const (
	CodeBadInput    Code = "bad_input"   // a flag, spec or job that cannot be run
	CodeBadBundle   Code = "bad_bundle"  // a bundle missing, partial, tampered or of another hash
	CodeDeadLetter  Code = "dead_letter" // jobs of the run went to the dead-letter stream
	CodeUnavailable Code = "unavailable" // NATS or JetStream cannot be reached or set up
	CodeLost        Code = "result_lost" // a stored result cannot be read back
	CodeForbidden   Code = "forbidden"   // a job asks for what this worker's configuration does not allow
)

// Error is the one error type of the package. errors.Is(err, &Error{Code: c})
// matches any *Error with code c.
type Error struct {
	Code Code
	Msg  string
	Err  error // the cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("fleet: %s: %v", e.Msg, e.Err)
	}
	return "fleet: " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorf(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: cause}
}
