package rl

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// JSONL writes one rollout per line (docs/ROLLOUT.md). By default a line
// names its toolset (the tools and the system prompt), written once per
// file as a record line before the first rollout that uses it: a 59-tool
// environment's tools are ~30 KB, most of a line otherwise; and it leaves
// out what a reader derives exactly (compact.go). Inline writes every
// line whole instead, as before.
type JSONL struct {
	// Inline writes the tools and the system message into every line (no
	// toolset records); set it before the first Write.
	Inline bool

	w    *bufio.Writer
	gz   *gzip.Writer     // when the path ends in .gz
	f    *atomicfile.File // when writing to a path
	enc  *json.Encoder
	sets toolsets
	seen map[string]bool // toolsets written
}

// NewJSONL writes to w; Close flushes but does not close w.
func NewJSONL(w io.Writer) *JSONL {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONL{w: bw, enc: enc, seen: map[string]bool{}}
}

// CreateJSONL writes to a temporary file beside path, renamed to path on
// Close, so a failed or cancelled run never leaves a half-written file. A
// path ending in .gz is gzip-compressed (Python's gzip module, Hugging
// Face datasets and ReadRolloutFile read it as is).
func CreateJSONL(path string) (*JSONL, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	var w io.Writer = f
	var gz *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		gz = gzip.NewWriter(f)
		w = gz
	}
	j := NewJSONL(w)
	j.f, j.gz = f, gz
	return j, nil
}

// Write implements Exporter.
func (j *JSONL) Write(group []Rollout) error {
	for i := range group {
		r := &group[i]
		if j.Inline || !compactable(r) {
			if err := j.enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		ts, err := j.sets.of(r)
		if err != nil {
			return err
		}
		if !j.seen[ts.ID] {
			if err := j.enc.Encode(ts); err != nil {
				return err
			}
			j.seen[ts.ID] = true
		}
		line := compact(r, ts)
		if err := j.enc.Encode(&line); err != nil {
			return err
		}
	}
	return nil
}

// Close implements Exporter.
func (j *JSONL) Close() error {
	err := j.w.Flush()
	if j.gz != nil {
		if gerr := j.gz.Close(); err == nil {
			err = gerr
		}
	}
	if j.f == nil {
		return err
	}
	if err != nil {
		j.f.Abort()
		return err
	}
	return j.f.Commit()
}

// Abort drops a file being written to a path.
func (j *JSONL) Abort() {
	if j.f != nil {
		j.f.Abort()
	}
}
