package rl

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadRolloutFile is ReadRollouts on a file; a name ending in .gz is
// gunzipped.
func ReadRolloutFile(path string, fn func(*Rollout) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrRolloutFile, path, err)
		}
		defer gz.Close()
		r = gz
	}
	return ReadRollouts(r, fn)
}

// ErrRolloutFile is wrapped by ReadRollouts' errors about the file's
// content (as opposed to the reader's).
var ErrRolloutFile = errors.New("rollout file")

// ReadRollouts reads a JSONL rollout file, compact (toolset records and
// lines that name them, of either format) or whole (every line with its
// tools, the format before toolsets), and calls fn with each rollout in its
// full view: tools, the leading system message and what a compact line
// leaves out restored. Lines of every kind may mix. Each non-blank line is
// one JSON object; the default ReadLimits bound it.
func ReadRollouts(r io.Reader, fn func(*Rollout) error) error {
	return ReadRolloutsLimited(r, ReadLimits{}, fn)
}

// ReadRolloutsLimited is ReadRollouts under lim (zero fields: defaults).
func ReadRolloutsLimited(r io.Reader, lim ReadLimits, fn func(*Rollout) error) error {
	lim = lim.withDefaults()
	lines := newLineReader(r)
	toolsets := map[string]*Toolset{}
	sizes := map[string]int64{} // a toolset's record bytes, which each line naming it expands by
	var expanded int64
	for n := 1; ; n++ {
		raw, err := lines.next(lim.RecordBytes)
		if err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrRolloutFile, n, err)
		}
		if blank(raw) {
			continue
		}
		if raw = bytes.TrimLeft(raw, " \t\r\n"); raw[0] != '{' { // null would decode as an empty rollout
			return fmt.Errorf("%w: record %d: not a JSON object", ErrRolloutFile, n)
		}
		if depthOver(raw, lim.Depth) {
			return fmt.Errorf("%w: record %d: JSON nested deeper than %d levels", ErrRolloutFile, n, lim.Depth)
		}
		var head struct {
			Record  string  `json:"record"`
			Toolset *string `json:"toolset"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrRolloutFile, n, err)
		}
		switch {
		case head.Record == RecordToolset || head.Record == RecordToolsetV1:
			if int64(len(raw)) > lim.ToolsetBytes {
				return fmt.Errorf("%w: record %d: a toolset of %d bytes, over the limit of %d", ErrRolloutFile, n, len(raw), lim.ToolsetBytes)
			}
			var ts Toolset
			if err := json.Unmarshal(raw, &ts); err != nil || ts.ID == "" {
				return fmt.Errorf("%w: record %d: a toolset without an id (%v)", ErrRolloutFile, n, err)
			}
			toolsets[ts.ID], sizes[ts.ID] = &ts, int64(len(raw))
			continue
		case strings.HasPrefix(head.Record, RecordToolsetV1):
			return fmt.Errorf("%w: record %d: a %q record is of a newer format than this reader's (%q): update wasmenv", ErrRolloutFile, n, head.Record, RecordToolset)
		case head.Record != "":
			return fmt.Errorf("%w: record %d: unknown record %q", ErrRolloutFile, n, head.Record)
		}
		var ts *Toolset
		expanded += int64(len(raw))
		if head.Toolset != nil {
			if ts = toolsets[*head.Toolset]; ts == nil {
				return fmt.Errorf("%w: record %d: toolset %q is not defined before it", ErrRolloutFile, n, *head.Toolset)
			}
			expanded += sizes[*head.Toolset]
		}
		if bound := lim.ExpandedBytes + lim.Expansion*lines.read; expanded > bound {
			return fmt.Errorf("%w: record %d: the lines so far expand to %d bytes with their toolsets, over the limit of %d (%d + %d × the %d bytes read)",
				ErrRolloutFile, n, expanded, bound, lim.ExpandedBytes, lim.Expansion, lines.read)
		}
		var ro Rollout
		if ts != nil && ts.Record == RecordToolset {
			var line compactLine
			if err = json.Unmarshal(raw, &line); err == nil {
				ro = line.expand(ts)
			}
		} else if err = json.Unmarshal(raw, &ro); err == nil && ts != nil {
			ts.restore(&ro)
		}
		if err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrRolloutFile, n, err)
		}
		if err := fn(&ro); err != nil {
			return err
		}
	}
}
