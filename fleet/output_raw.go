package fleet

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/rl"
)

// rawOutput writes groups of compact JSONL as they came, dropping each
// toolset record whose toolset the file already has: the bytes rl.JSONL
// writes for the same rollouts in the same order, since a worker's group
// is rl.JSONL's output for that group alone (its records come before the
// first line that names them, as in the file).
type rawOutput struct {
	w    *bufio.Writer
	gz   *gzip.Writer
	f    *atomicfile.File
	seen map[string]bool // toolset ids written
	err  error
}

func createRawOutput(path string) (*rawOutput, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	o := &rawOutput{f: f, seen: map[string]bool{}}
	var w io.Writer = f
	if strings.HasSuffix(path, ".gz") { // as rl.CreateJSONL
		o.gz = gzip.NewWriter(f)
		w = o.gz
	}
	o.w = bufio.NewWriterSize(w, 1<<16)
	return o, nil
}

// recordPrefix starts a toolset record as rl's encoder writes one, of
// either format (rl.RecordToolset starts with rl.RecordToolsetV1).
var recordPrefix = []byte(`{"record":"` + rl.RecordToolsetV1)

func (o *rawOutput) WriteGroup(lines []byte) error {
	if o.err != nil {
		return o.err
	}
	for len(lines) > 0 {
		line, rest, ok := bytes.Cut(lines, []byte{'\n'})
		lines = rest
		if !ok || len(line) == 0 || line[0] != '{' {
			o.err = errorf(CodeLost, nil, "a stored group is not JSON lines")
			return o.err
		}
		if bytes.HasPrefix(line, recordPrefix) {
			var ts struct {
				Record string `json:"record"`
				ID     string `json:"toolset"`
			}
			if err := json.Unmarshal(line, &ts); err != nil || ts.ID == "" {
				o.err = errorf(CodeLost, err, "a stored group's toolset record")
				return o.err
			}
			if o.seen[ts.ID] {
				continue
			}
			o.seen[ts.ID] = true
		}
		o.w.Write(line)
		if err := o.w.WriteByte('\n'); err != nil {
			o.err = err
			return err
		}
	}
	return nil
}

func (o *rawOutput) Close() error {
	err := o.err
	if ferr := o.w.Flush(); err == nil {
		err = ferr
	}
	if o.gz != nil {
		if gerr := o.gz.Close(); err == nil {
			err = gerr
		}
	}
	if o.f == nil {
		return err
	}
	if err != nil {
		o.f.Abort()
		return err
	}
	return o.f.Commit()
}

func (o *rawOutput) Abort() {
	if o.f != nil {
		o.f.Abort()
	}
}
