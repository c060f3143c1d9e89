package rl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// ReadLimits bound what one rollout file can make a reader hold or hand
// on. A 611 KB .jsonl.gz held one 600 MB line (3.1 GB to read it whole),
// and a 3.9 MB compact file (a 2 MB toolset named by 20,000 small lines)
// expands to ~40 GB of whole lines for a writer of Parquet or
// --inline-tools. Zero fields take the defaults below; docs/ROLLOUT.md
// lists them, and wasmenv_client.rollouts applies the same ones.
type ReadLimits struct {
	// RecordBytes caps one line (default 64 MiB); a longer one is refused
	// once this much of it was read, before the rest is buffered.
	RecordBytes int64
	// ToolsetBytes caps one toolset record's line (default 4 MiB: a
	// model's whole context holds less).
	ToolsetBytes int64
	// ExpandedBytes and Expansion bound the file's lines restored to
	// their full view (each line's bytes plus its toolset record's), in
	// all: at most ExpandedBytes (default 1 GiB) plus Expansion (default
	// 4096) times the bytes read so far. Real files expand ~10-20×.
	ExpandedBytes int64
	Expansion     int64
	// Depth caps how deep a line's JSON nests (default 128; wasmenv
	// writes about 8 levels besides a tool's parameter schema).
	Depth int
}

// Default read limits.
const (
	DefaultRecordBytes   = 64 << 20
	DefaultToolsetBytes  = 4 << 20
	DefaultExpandedBytes = 1 << 30
	DefaultExpansion     = 4096
	DefaultDepth         = 128
)

func (l ReadLimits) withDefaults() ReadLimits {
	if l.RecordBytes <= 0 {
		l.RecordBytes = DefaultRecordBytes
	}
	if l.ToolsetBytes <= 0 {
		l.ToolsetBytes = DefaultToolsetBytes
	}
	if l.ExpandedBytes <= 0 {
		l.ExpandedBytes = DefaultExpandedBytes
	}
	if l.Expansion <= 0 {
		l.Expansion = DefaultExpansion
	}
	if l.Depth <= 0 {
		l.Depth = DefaultDepth
	}
	return l
}

// lineReader reads the lines of a rollout file, each at most max bytes:
// a longer line is an error as soon as max bytes of it were read.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	read int64 // bytes read so far, newlines included
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next line without its newline; io.EOF after the last.
func (lr *lineReader) next(max int64) ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.read += int64(len(chunk))
		n := len(lr.buf) + len(chunk)
		if err == nil {
			n-- // the newline
		}
		if int64(n) > max {
			return nil, fmt.Errorf("a line longer than %d bytes (the record limit)", max)
		}
		lr.buf = append(lr.buf, chunk...)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return bytes.TrimSuffix(lr.buf, []byte("\n")), nil
		case io.EOF:
			if len(lr.buf) == 0 {
				return nil, io.EOF
			}
			return lr.buf, nil
		default:
			return nil, err
		}
	}
}

// blank reports whether a line holds only JSON whitespace (skipped).
func blank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n")) == 0
}

// depthOver reports whether line's JSON nests deeper than max (strings
// skipped; the line need not be valid JSON).
func depthOver(line []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range line {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
