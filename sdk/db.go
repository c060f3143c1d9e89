package sdk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// ErrNoRows is returned by QueryRow when the query returns nothing.
var ErrNoRows = errors.New("sdk: no rows in result set")

// ErrNoHost is returned outside the wasmenv guest (go test on the host).
var ErrNoHost = errors.New("sdk: not running inside wasmenv")

// Result is what Exec reports.
type Result struct {
	RowsAffected int64
	LastInsertID int64
}

// Query runs a read statement with ? parameters and returns all rows.
func Query(sql string, args ...any) (Rows, error) {
	n, err := send(wire.OpQueryJSON, sql, args)
	if err != nil {
		return Rows{}, err
	}
	// The result and its response's memory come from the call's scope
	// (take and response inline: a call costs the guest more).
	res := callResults.take()
	buf := res.response(n)
	hostTake(buf)
	if err := res.parse(buf); err != nil {
		return Rows{}, err
	}
	return Rows{&res.result}, nil
}

// QueryText runs a query and returns the first column of its first row as
// Row.String gives it, and found false when there is no row. It is for a
// value that tool code reads rather than returns as a row (a stored
// document's text): the host sends the value once, not also rendered in
// the rows' JSON.
func QueryText(sql string, args ...any) (text string, found bool, err error) {
	n, err := send(wire.OpQueryValues, sql, args)
	if err != nil {
		return "", false, err
	}
	// The response is read in place and only the value copied out: no
	// result, no column names, no decoded cells (each allocation and map
	// lookup costs the guest more than the copy).
	buf := respBuf
	if cap(buf) < n {
		buf = make([]byte, n)
		if n <= maxKeptResponse {
			respBuf = buf
		}
	}
	buf = buf[:n]
	hostTake(buf)
	var q result
	if err := q.parse(buf); err != nil {
		return "", false, err
	}
	if q.n == 0 {
		return "", false, nil
	}
	if ncols, _ := binary.Uvarint(q.block); ncols == 0 {
		return "", true, nil
	}
	text, err = firstString(q.vals)
	return text, err == nil, err
}

// maxKeptResponse bounds the response buffer kept between calls.
const maxKeptResponse = 64 << 10

// firstString is the first wire value of vals as Row.String writes it,
// copied out of the response.
func firstString(vals []byte) (string, error) {
	if len(vals) == 0 {
		return "", errMalformed
	}
	switch b := vals[1:]; vals[0] {
	case wire.TagNull:
		return "", nil
	case wire.TagInt:
		v, w := binary.Varint(b)
		if w <= 0 {
			return "", errMalformed
		}
		return strconv.FormatInt(v, 10), nil
	case wire.TagFloat:
		if len(b) < 8 {
			return "", errMalformed
		}
		return fmt.Sprint(math.Float64frombits(binary.LittleEndian.Uint64(b))), nil
	case wire.TagText, wire.TagBlob:
		l, w := binary.Uvarint(b)
		if w <= 0 || l > uint64(len(b)-w) {
			return "", errMalformed
		}
		return string(b[w : w+int(l)]), nil
	}
	return "", errMalformed
}

// QueryRow runs a query and returns its first row, or ErrNoRows.
func QueryRow(sql string, args ...any) (Row, error) {
	rows, err := Query(sql, args...)
	if err != nil {
		return Row{}, err
	}
	if rows.Len() == 0 {
		return Row{}, ErrNoRows
	}
	return Row{rows.res, 0}, nil
}

// Exec runs a write statement with ? parameters.
func Exec(sql string, args ...any) (Result, error) {
	n, err := send(wire.OpExec, sql, args)
	if err != nil {
		return Result{}, err
	}
	if cap(respBuf) < n {
		respBuf = make([]byte, n)
	}
	resp := respBuf[:n]
	hostTake(resp)
	if resp[0] == wire.StatusError {
		return Result{}, status(resp)
	}
	return execResult(resp[1:])
}

// execResult reads an exec's response after its status byte, in place:
// a wire.Reader escaped (an allocation) and cost a call per count; the
// rows affected, a small count, are read inline.
func execResult(b []byte) (Result, error) {
	var affected int64
	var w int
	if len(b) > 0 && b[0] < 0x80 {
		affected, w = int64(b[0]>>1)^-int64(b[0]&1), 1
	} else if affected, w = binary.Varint(b); w <= 0 {
		return Result{}, errMalformedExec
	}
	lastID, w2 := binary.Varint(b[w:])
	if w2 <= 0 {
		return Result{}, errMalformedExec
	}
	return Result{RowsAffected: affected, LastInsertID: lastID}, nil
}

var errMalformedExec = errors.New("sdk: malformed exec response")

// respBuf holds the responses nothing keeps (Exec's), reused.
var respBuf []byte

// send sends a request and returns the size of its response, which
// hostTake then copies out.
func send(op byte, sql string, args []any) (int, error) {
	// The lengths, the count and the common parameters (ints and strings
	// under 2^14) are written here, not by calls into wire: in the guest
	// a call costs more than the bytes it writes.
	req := appendShortUvarint(append(reqBuf[:0], op), uint64(len(sql)))
	req = append(req, sql...)
	req = appendShortUvarint(req, uint64(len(args)))
	for i, a := range args {
		switch x := a.(type) {
		case int:
			if zz := uint64(x<<1) ^ uint64(x>>63); zz < 1<<14 { // zig-zag
				req = appendShortUvarint(append(req, wire.TagInt), zz)
				continue
			}
		case string:
			if len(x) < 1<<14 {
				req = append(appendShortUvarint(append(req, wire.TagText), uint64(len(x))), x...)
				continue
			}
		}
		var err error
		if req, err = wire.AppendValue(req, a); err != nil {
			return 0, fmt.Errorf("sdk: SQL parameter %d: %T not supported", i+1, a)
		}
	}
	reqBuf = req
	n, err := hostSend(req)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, errors.New("sdk: empty response from host")
	}
	return n, nil
}

// appendShortUvarint appends v as a uvarint, inline when under 2^14.
func appendShortUvarint(b []byte, v uint64) []byte {
	switch {
	case v < 1<<7:
		return append(b, byte(v))
	case v < 1<<14:
		return append(b, byte(v)|0x80, byte(v>>7))
	}
	return wire.AppendUvarint(b, v)
}

// status is the error a response reports, if any.
func status(resp []byte) error {
	if len(resp) == 0 {
		return errMalformed
	}
	if resp[0] == wire.StatusError {
		return errors.New(wire.NewReader(resp[1:]).String())
	}
	return nil
}

// reqBuf is reused across requests: a guest runs one call at a time.
var reqBuf []byte

// Now is the episode's clock: it starts at the environment's epoch and
// advances deterministically, so the same seed and calls give the same times.
func Now() time.Time { return time.Unix(0, hostClock()).UTC() }

// Rand returns 64 random bits from the episode's seeded generator.
func Rand() uint64 { return hostRandom() }

// RandIntn returns a random integer in [0, n). It panics if n <= 0.
func RandIntn(n int) int {
	if n <= 0 {
		panic("sdk: RandIntn with n <= 0")
	}
	return int(hostRandom() % uint64(n))
}

// RandFloat returns a random float in [0, 1).
func RandFloat() float64 { return float64(hostRandom()>>11) / (1 << 53) }

// Log writes a line to the episode's log (visible to the operator, not the agent).
func Log(format string, args ...any) { hostLog(fmt.Sprintf(format, args...)) }
