package runtime

import (
	"github.com/wasmenv/wasmenv/sdk/wire"
)

// maxResponse bounds one SQL response handed to the guest.
const maxResponse = 32 << 20

// The "wasmenv" host module the guest imports (see sdk/host_wasip1.go).
// Engines route the imports to these methods of the calling instance.

// hostSQL runs one request and keeps the response for hostTake; it returns
// the response size, or -1 if the request could not be read at all.
func (inst *instance) hostSQL(ptr, n uint32) (size int32) {
	c := inst.cur
	req, ok := inst.g.read(ptr, n)
	if c == nil || !ok {
		return -1
	}
	defer c.ep.catchGuestOOM(&c.resp, &size)
	c.resp = c.ep.execGuestSQL(c, c.resp[:0], req)
	if len(c.resp) > maxResponse {
		c.resp = errorResponse(c.resp[:0], errTooLarge)
	}
	return int32(len(c.resp))
}

// errTooLarge is the guest's error for a response over maxResponse.
const errTooLarge = "query result too large (over 32 MiB): select fewer rows or columns"

func (inst *instance) hostTake(ptr uint32) {
	if c := inst.cur; c != nil {
		inst.g.write(ptr, c.resp)
	}
}

func (inst *instance) hostClock() int64 {
	if c := inst.cur; c != nil {
		return c.ep.clockNanos()
	}
	return 0
}

func (inst *instance) hostRandom() uint64 {
	if c := inst.cur; c != nil {
		return c.ep.rng.Uint64()
	}
	return 0
}

const maxLogLine = 4096

func (inst *instance) hostLog(ptr, n uint32) {
	e := inst.env
	if n > maxLogLine {
		n = maxLogLine
	}
	if e.log == nil || !inst.logAllowed(n) {
		return
	}
	if b, ok := inst.g.read(ptr, n); ok {
		e.log(e.Name(), string(b))
	}
}

func errorResponse(b []byte, msg string) []byte {
	return wire.AppendString(append(b, wire.StatusError), msg)
}
