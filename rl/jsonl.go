package rl

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// JSONL writes one rollout per line (docs/ROLLOUT.md).
type JSONL struct {
	w   *bufio.Writer
	f   *atomicfile.File // when writing to a path
	enc *json.Encoder
}

// NewJSONL writes to w; Close flushes but does not close w.
func NewJSONL(w io.Writer) *JSONL {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONL{w: bw, enc: enc}
}

// CreateJSONL writes to a temporary file beside path, renamed to path on
// Close, so a failed or cancelled run never leaves a half-written file.
func CreateJSONL(path string) (*JSONL, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	j := NewJSONL(f)
	j.f = f
	return j, nil
}

// Write implements Exporter.
func (j *JSONL) Write(group []Rollout) error {
	for i := range group {
		if err := j.enc.Encode(&group[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close implements Exporter.
func (j *JSONL) Close() error {
	err := j.w.Flush()
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
