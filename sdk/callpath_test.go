package sdk

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// newResult is what Query takes for a response of n bytes.
func newResult(n int) (*result, []byte) {
	r := callResults.take()
	return &r.result, r.response(n)
}

// A query's result and its response's memory come from the call's scope:
// the next call takes the same memory back (no allocation), zeroed, so
// nothing of one call is visible to the next (issue 35, round 9).
func TestCallScopeReusesResultsZeroed(t *testing.T) {
	StartCall()
	small, smallBuf := newResult(200)
	big, bigBuf := newResult(5000)
	for _, b := range [][]byte{smallBuf, bigBuf} {
		for i := range b {
			b[i] = 0xAB
		}
	}
	small.n, small.json, big.n, big.vals = 3, smallBuf[:10], 7, bigBuf[:20]
	small.cells = []cell{{tag: wire.TagInt, n: 5}}
	StartCall()
	for i, r := range callResults.kept[:2] {
		if r.result.n != 0 || r.result.json != nil || r.result.vals != nil || r.result.cells != nil || r.size != 0 {
			t.Errorf("result %d not zeroed by StartCall: %+v", i, r.result)
		}
		if bytes.ContainsRune(r.small[:], 0xAB) || bytes.IndexByte(r.big, 0xAB) >= 0 {
			t.Errorf("result %d: the last call's response bytes are still there", i)
		}
	}
	again, againBuf := newResult(200)
	if again != small || &againBuf[0] != &smallBuf[0] {
		t.Error("the next call's first small result is not the last call's memory")
	}
	if allocs := testing.AllocsPerRun(100, func() {
		StartCall()
		sinkSmall, _ = newResult(200) // kept, as a tool's Row keeps its result
		sinkBig, _ = newResult(5000)
	}); allocs != 0 {
		t.Errorf("a call's results allocate %v times, want 0 (reused from call to call)", allocs)
	}
	StartCall()
}

var sinkSmall, sinkBig *result

// The scope keeps a bounded amount: past maxScopedResults results or
// maxKeptBig bytes of large responses, a call allocates what it needs and
// nothing more is kept.
func TestCallScopeIsBounded(t *testing.T) {
	StartCall()
	for range maxScopedResults + 10 {
		newResult(100)
	}
	for range 20 {
		newResult(200 << 10) // 200 KiB each: more than maxKeptBig in all
	}
	StartCall()
	if len(callResults.kept) > maxScopedResults {
		t.Errorf("%d results kept, at most %d", len(callResults.kept), maxScopedResults)
	}
	if callResults.keptBig > maxKeptBig {
		t.Errorf("%d bytes of large responses kept, at most %d", callResults.keptBig, maxKeptBig)
	}
	total := 0
	for _, r := range callResults.kept {
		total += cap(r.big)
	}
	if total != callResults.keptBig {
		t.Errorf("large buffers hold %d bytes, the count says %d", total, callResults.keptBig)
	}
}

// queryResponse is an OpQueryJSON response as the host writes it.
func queryResponse(block, jsonText string, n int, vals []byte) []byte {
	b := wire.AppendString([]byte{wire.StatusOK}, block)
	b = wire.AppendUvarint(b, uint64(n))
	b = wire.AppendString(b, jsonText)
	for i := range n {
		b = append(b, byte(i), 0, 0, 0)
	}
	return append(b, vals...)
}

// refParse is result.parse as it was, by wire.Reader.
func refParse(resp []byte) (block []byte, n int, jsonText, offs, vals []byte, err error) {
	if resp[0] == wire.StatusError {
		return nil, 0, nil, nil, nil, errors.New(wire.NewReader(resp[1:]).String())
	}
	r := wire.NewReader(resp[1:])
	block = r.Bytes()
	rows := r.Uvarint()
	jsonText = r.Bytes()
	if r.Err() != nil {
		return nil, 0, nil, nil, nil, errMalformed
	}
	rest := resp[len(resp)-r.Len():]
	if rows > uint64(len(rest))/4 {
		return nil, 0, nil, nil, nil, errMalformed
	}
	return block, int(rows), jsonText, rest[:4*rows], rest[4*rows:], nil
}

// parse reads every length (one, two and three-byte uvarints) as the
// wire describes, and refuses each truncation of a response without a
// panic, as the Reader-based parse did.
func TestParseMatchesWire(t *testing.T) {
	var resps [][]byte
	for _, bl := range []int{0, 5, 127, 128, 300, 16383, 16384, 20000} {
		for _, jl := range []int{0, 2, 127, 128, 1000, 16383, 16384, 40000} {
			for _, n := range []int{0, 1, 3, 200} {
				resps = append(resps, queryResponse(strings.Repeat("c", bl), strings.Repeat("j", jl), n, []byte{wire.TagNull, wire.TagInt, 4}))
			}
		}
	}
	resps = append(resps, wire.AppendString([]byte{wire.StatusError}, "no such table: x"))
	for _, full := range resps {
		cuts := []int{len(full), 1, 2, 3, len(full) / 2, len(full) - 1}
		for _, cut := range cuts {
			resp := full[:max(cut, 1)]
			var q result
			err := q.parse(resp)
			block, n, jsonText, offs, vals, refErr := refParse(resp)
			if errText(err) != errText(refErr) {
				t.Fatalf("len %d cut %d: error %v, want %v", len(full), cut, err, refErr)
			}
			if err != nil {
				continue
			}
			if !bytes.Equal(q.block, block) || q.n != n || !bytes.Equal(q.offs, offs) || !bytes.Equal(q.vals, vals) ||
				(len(jsonText) > 0) != (q.json != nil) || !bytes.Equal(q.json, jsonText) {
				t.Fatalf("len %d cut %d: parsed differently from the wire", len(full), cut)
			}
		}
	}
}

// refRequest is a request as wire writes it.
func refRequest(op byte, sql string, args []any) []byte {
	b := wire.AppendUvarint(wire.AppendString([]byte{op}, sql), uint64(len(args)))
	for _, a := range args {
		b, _ = wire.AppendValue(b, a)
	}
	return b
}

// send writes what wire does for every parameter, at and around each
// width its inline paths handle (outside the guest hostSend fails, after
// the request is written into reqBuf).
func TestSendEncodesLikeWire(t *testing.T) {
	var ints []int
	for _, edge := range []int{0, 63, 64, 127, 128, 8191, 8192, 16383, 16384, 1 << 20, math.MaxInt64} {
		ints = append(ints, edge-1, edge, edge+1, -edge-1, -edge, -edge+1)
	}
	ints = append(ints, math.MinInt64)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		ints = append(ints, int(rng.Int64N(1<<20))-1<<19)
	}
	var argSets [][]any
	for _, v := range ints {
		argSets = append(argSets, []any{v})
	}
	for _, l := range []int{0, 1, 127, 128, 16383, 16384, 70000} {
		argSets = append(argSets, []any{strings.Repeat("s", l)}, []any{1, strings.Repeat("é", l/2), nil, 2.5, []byte("b"), int64(-3), true, uint8(9)})
	}
	many := make([]any, 300)
	for i := range many {
		many[i] = i
	}
	argSets = append(argSets, many, nil)
	for _, sqlLen := range []int{0, 60, 127, 128, 16383, 16384, 20000} {
		sql := strings.Repeat("x", sqlLen)
		for _, args := range argSets {
			if _, err := send(wire.OpQueryJSON, sql, args); !errors.Is(err, ErrNoHost) {
				t.Fatalf("send outside the guest: %v", err)
			}
			if want := refRequest(wire.OpQueryJSON, sql, args); !bytes.Equal(reqBuf, want) {
				t.Fatalf("sql of %d bytes, args %.40v: request differs from the wire's", sqlLen, args)
			}
		}
	}
	if _, err := send(wire.OpExec, "x", []any{struct{}{}}); err == nil || !strings.Contains(err.Error(), "parameter 1: struct {} not supported") {
		t.Fatalf("an unsupported parameter: %v", err)
	}
}

// An exec's counts are read as wire.Reader read them, whatever their width.
func TestExecResultMatchesWire(t *testing.T) {
	for _, affected := range []int64{0, 1, -1, 63, 64, -64, -65, 1000, math.MaxInt64, math.MinInt64} {
		for _, last := range []int64{0, 5, 1 << 40, -7} {
			b := wire.AppendVarint(wire.AppendVarint(nil, affected), last)
			res, err := execResult(b)
			if err != nil || res.RowsAffected != affected || res.LastInsertID != last {
				t.Fatalf("%d, %d: read %+v, %v", affected, last, res, err)
			}
			for cut := range len(b) {
				if _, err := execResult(b[:cut]); err != errMalformedExec {
					t.Fatalf("%d, %d cut at %d: %v, want a malformed response", affected, last, cut, err)
				}
			}
		}
	}
}

// End's inline case (nothing after the value) and its general case agree
// with skipping whitespace and then requiring the end.
func TestEndAfterValue(t *testing.T) {
	for doc, want := range map[string]string{
		`{}`: "", `{} `: "", "{}\n\t ": "", `{}x`: "json: unexpected data after value at offset 2",
		`{} x`: "json: unexpected data after value at offset 3", `{}{}`: "json: unexpected data after value at offset 2",
	} {
		d := NewDecoder([]byte(doc))
		if err := d.ObjectStart(); err != nil {
			t.Fatal(err)
		}
		if _, more, err := d.ObjectKey(true); more || err != nil {
			t.Fatal(more, err)
		}
		if got := errText(d.End()); got != want {
			t.Errorf("%q: End %q, want %q", doc, got, want)
		}
	}
}
