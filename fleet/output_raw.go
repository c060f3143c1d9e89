package fleet

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
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
	w       *bufio.Writer
	gz      *gzip.Writer
	f       *atomicfile.File
	seen    map[string]bool   // toolset ids written
	written map[[32]byte]bool // the SHA-256 of each record written
	err     error
}

func createRawOutput(path string) (*rawOutput, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	o := &rawOutput{f: f, seen: map[string]bool{}, written: map[[32]byte]bool{}}
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
			sum := sha256.Sum256(line)
			if o.written[sum] {
				continue // this very record is in the file
			}
			id, err := checkToolsetRecord(line)
			if err != nil {
				o.err = err
				return err
			}
			if _, ok := o.seen[id]; ok {
				// The same id with other content: a record that would
				// change what every later line of it reads.
				o.err = errorf(CodeLost, nil, "two toolset records %s of different content", id)
				return o.err
			}
			o.seen[id], o.written[sum] = true, true
		}
		o.w.Write(line)
		if err := o.w.WriteByte('\n'); err != nil {
			o.err = err
			return err
		}
	}
	return nil
}

// checkToolsetRecord reads a toolset record and returns its id, which must
// be the hash of its content (rl.Toolset.ContentID): a group's record
// cannot give a toolset id another content. Records of the first format
// (rl.RecordToolsetV1), which no worker writes, are refused.
func checkToolsetRecord(line []byte) (string, error) {
	var ts rl.Toolset
	if err := json.Unmarshal(line, &ts); err != nil || ts.ID == "" {
		return "", errorf(CodeLost, err, "a stored group's toolset record")
	}
	if ts.Record != rl.RecordToolset {
		return "", errorf(CodeLost, nil, "a stored group's toolset record is of format %q, not %q", truncate(ts.Record, 32), rl.RecordToolset)
	}
	if id, err := ts.ContentID(); err != nil || id != ts.ID {
		return "", errorf(CodeLost, err, "toolset record %s: its id is not the hash of its content", truncate(ts.ID, 32))
	}
	return ts.ID, nil
}

// toolsetChecker checks every line of the groups a worker sent: a toolset
// record as rl's encoder writes it (recordPrefix, which the output
// recognizes) with the id of its content (checkToolsetRecord), or a line
// that a reader does not take for a record. A line that may hold a
// "record" key (mayNameRecord) is decoded as a reader decodes it (a
// "record" key anywhere, of any case, makes a record for rl.ReadRollouts):
// a record that the output would not recognize, and so not deduplicate, is
// refused. Other lines are not decoded, and a record checked once (by its
// SHA-256) is not checked again: the driver keeps its speed.
type toolsetChecker map[[32]byte]bool

func (c toolsetChecker) check(lines []byte) error {
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte{'\n'})
		if bytes.HasPrefix(line, recordPrefix) {
			sum := sha256.Sum256(line)
			if c[sum] {
				continue
			}
			if _, err := checkToolsetRecord(line); err != nil {
				return err
			}
			c[sum] = true
			continue
		}
		if !mayNameRecord(line) {
			continue
		}
		var head struct {
			Record *string `json:"record"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return errorf(CodeLost, err, "a stored group's line is not JSON")
		}
		if head.Record != nil && *head.Record != "" {
			return errorf(CodeLost, nil, "a stored group's %q record is not as the encoder writes one", truncate(*head.Record, 32))
		}
	}
	return nil
}

// mayNameRecord reports whether a line may hold a key that encoding/json
// reads as "record": a \u escape (which may spell any letter), or the
// word quoted whole, "record" in letters of either case (Go's key matching
// folds case, and these letters fold to nothing else). Inside a string a
// quote is escaped, so a word quoted so is a key or a value, never text.
func mayNameRecord(line []byte) bool {
	return bytes.Contains(line, []byte(`\u`)) || quotedFold(line, 'r', "record") || quotedFold(line, 'R', "record")
}

// quotedFold reports whether "word" (ASCII, quotes included) is in b, in
// any case, at a place whose word starts with the byte first (IndexByte
// finds those fast).
func quotedFold(b []byte, first byte, word string) bool {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], first)
		if i < 0 {
			return false
		}
		i += off
		if i > 0 && i+len(word) < len(b) && b[i-1] == '"' && b[i+len(word)] == '"' && bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return true
		}
		off = i + 1
	}
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
