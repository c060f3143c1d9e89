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
	res, buf := newResult(n)
	hostTake(buf)
	if err := status(buf); err != nil {
		return Rows{}, err
	}
	if err := res.parse(buf[1:]); err != nil {
		return Rows{}, err
	}
	return Rows{res}, nil
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
	if err := status(buf); err != nil {
		return "", false, err
	}
	var q result
	if err := q.parse(buf[1:]); err != nil {
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
	return rows.Row(0), nil
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
	if err := status(resp); err != nil {
		return Result{}, err
	}
	r := wire.NewReader(resp[1:])
	res := Result{RowsAffected: r.Varint(), LastInsertID: r.Varint()}
	if r.Err() != nil {
		return Result{}, errors.New("sdk: malformed exec response")
	}
	return res, nil
}

// respBuf holds the responses nothing keeps (Exec's), reused.
var respBuf []byte

// send sends a request and returns the size of its response, which
// hostTake then copies out.
func send(op byte, sql string, args []any) (int, error) {
	req := append(reqBuf[:0], op)
	req = wire.AppendString(req, sql)
	req = wire.AppendUvarint(req, uint64(len(args)))
	for i, a := range args {
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

// status is the error a response reports, if any.
func status(resp []byte) error {
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
