package fleet

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/wasmenv/wasmenv/rl"
)

// Output receives each group's JSONL lines, in plan order. Close
// finishes it (a file appears whole); Abort drops what was written.
type Output interface {
	WriteGroup(lines []byte) error
	Close() error
	Abort()
}

// CreateOutput opens path as rl's exporters would: .jsonl (.json, .gz)
// through rl.JSONL (toolset records, written once per file), .parquet
// through rl.Parquet, "-" as JSONL on stdout. A file is written beside path
// and renamed on Close. The groups' lines (whole rollouts) are decoded and
// handed to the exporter in plan order, so the bytes are those of a local
// run.
func CreateOutput(path string, stdout io.Writer) (Output, error) {
	switch {
	case path == "-":
		j := rl.NewJSONL(stdout)
		return &exporterOutput{e: j, abort: func() {}}, nil
	case strings.HasSuffix(path, ".parquet"):
		p, err := rl.CreateParquet(path)
		if err != nil {
			return nil, err
		}
		return &exporterOutput{e: p, abort: p.Abort}, nil
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".json"), strings.HasSuffix(path, ".gz"):
		j, err := rl.CreateJSONL(path)
		if err != nil {
			return nil, err
		}
		return &exporterOutput{e: j, abort: j.Abort}, nil
	}
	return nil, errorf(CodeBadInput, nil, "output %q: want a .jsonl or .parquet file, or -", path)
}

// FromExporter makes an Output of an rl.Exporter (abort drops what it
// wrote), for a caller that opened the exporter itself.
func FromExporter(e rl.Exporter, abort func()) Output { return &exporterOutput{e: e, abort: abort} }

// exporterOutput decodes the lines back into rollouts for an rl.Exporter.
type exporterOutput struct {
	e     rl.Exporter
	abort func()
}

func (o *exporterOutput) WriteGroup(lines []byte) error {
	var group []rl.Rollout
	dec := json.NewDecoder(bytes.NewReader(lines))
	for dec.More() {
		var r rl.Rollout
		if err := dec.Decode(&r); err != nil {
			return errorf(CodeLost, err, "decode a stored rollout")
		}
		group = append(group, r)
	}
	if len(group) == 0 {
		return nil
	}
	return o.e.Write(group)
}

func (o *exporterOutput) Close() error { return o.e.Close() }
func (o *exporterOutput) Abort()       { o.abort() }

// assembler writes groups to out in plan order as they arrive in any
// order, once each: a second arrival of an index (a redelivered job) is
// dropped.
type assembler struct {
	mu      sync.Mutex
	out     Output
	order   []int // indices in plan order
	next    int   // position in order of the next group to write
	pending map[int][]byte
	seen    map[int]bool
	sum     *summary
	err     error
}

func newAssembler(refs []GroupRef, out Output) *assembler {
	a := &assembler{out: out, pending: map[int][]byte{}, seen: map[int]bool{}, sum: newSummary()}
	for _, r := range refs {
		a.order = append(a.order, r.Index)
	}
	return a
}

// add records a result; it reports whether it was new.
func (a *assembler) add(r *Result) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return false, a.err
	}
	if a.seen[r.Index] || !a.wanted(r.Index) {
		return false, nil
	}
	a.seen[r.Index] = true
	a.sum.add(r.Summary)
	a.pending[r.Index] = r.Lines
	for a.next < len(a.order) {
		lines, ok := a.pending[a.order[a.next]]
		if !ok {
			break
		}
		delete(a.pending, a.order[a.next])
		if err := a.out.WriteGroup(lines); err != nil {
			a.err = err
			return true, err
		}
		a.next++
	}
	return true, nil
}

func (a *assembler) wanted(index int) bool {
	_, ok := slices.BinarySearch(a.order, index) // plan order is index order
	return ok
}

// has reports whether the group of index arrived.
func (a *assembler) has(index int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seen[index]
}

// done reports how many groups arrived and whether all did.
func (a *assembler) done() (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.seen), len(a.seen) == len(a.order)
}
