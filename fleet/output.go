package fleet

import (
	"bufio"
	"bytes"
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

// CreateOutput opens path as rl's exporters would: .jsonl (.json, .gz) as
// rl.JSONL writes it (toolset records once per file, or every line whole
// when inline), .parquet through rl.Parquet, "-" as JSONL on stdout. A file
// is written beside path and renamed on Close. The bytes are those of a
// local run that writes its groups in plan order.
//
// A group arrives as a worker's rl.JSONL wrote it alone: its toolset
// records, then its compact lines. JSONL (not inline) is then written as
// it came, less the toolset records the file already has, with no JSON
// decoding: one driver writes every rollout of the fleet, and this keeps it
// at the speed of its disk (docs/SCALING.md). Parquet and inline JSONL
// read the group back into rollouts first (rl.ReadRollouts).
func CreateOutput(path string, stdout io.Writer, inline bool) (Output, error) {
	switch {
	case path == "-" && !inline:
		return &rawOutput{w: bufio.NewWriterSize(stdout, 1<<16), seen: map[string]bool{}, written: map[[32]byte]bool{}}, nil
	case path == "-":
		j := rl.NewJSONL(stdout)
		j.Inline = true
		return &exporterOutput{e: j, abort: func() {}, checked: toolsetChecker{}}, nil
	case strings.HasSuffix(path, ".parquet"):
		p, err := rl.CreateParquet(path)
		if err != nil {
			return nil, err
		}
		return &exporterOutput{e: p, abort: p.Abort, checked: toolsetChecker{}}, nil
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".json"), strings.HasSuffix(path, ".gz"):
		if !inline {
			return createRawOutput(path)
		}
		j, err := rl.CreateJSONL(path)
		if err != nil {
			return nil, err
		}
		j.Inline = true
		return &exporterOutput{e: j, abort: j.Abort, checked: toolsetChecker{}}, nil
	}
	return nil, errorf(CodeBadInput, nil, "output %q: want a .jsonl, .jsonl.gz or .parquet file, or -", path)
}

// FromExporter makes an Output of an rl.Exporter (abort drops what it
// wrote), for a caller that opened the exporter itself.
func FromExporter(e rl.Exporter, abort func()) Output {
	return &exporterOutput{e: e, abort: abort, checked: toolsetChecker{}}
}

// exporterOutput reads the lines back into rollouts for an rl.Exporter.
type exporterOutput struct {
	e       rl.Exporter
	abort   func()
	checked toolsetChecker
}

func (o *exporterOutput) WriteGroup(lines []byte) error {
	if err := o.checked.check(lines); err != nil {
		return err
	}
	var group []rl.Rollout
	err := rl.ReadRollouts(bytes.NewReader(lines), func(r *rl.Rollout) error {
		group = append(group, *r)
		return nil
	})
	if err != nil {
		return errorf(CodeLost, err, "decode a stored group")
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
