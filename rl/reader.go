package rl

import (
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
// leaves out restored. Lines of every kind may mix.
func ReadRollouts(r io.Reader, fn func(*Rollout) error) error {
	dec := json.NewDecoder(r)
	toolsets := map[string]*Toolset{}
	for n := 1; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: record %d: %w", ErrRolloutFile, n, err)
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
			var ts Toolset
			if err := json.Unmarshal(raw, &ts); err != nil || ts.ID == "" {
				return fmt.Errorf("%w: record %d: a toolset without an id (%v)", ErrRolloutFile, n, err)
			}
			toolsets[ts.ID] = &ts
			continue
		case strings.HasPrefix(head.Record, RecordToolsetV1):
			return fmt.Errorf("%w: record %d: a %q record is of a newer format than this reader's (%q): update wasmenv", ErrRolloutFile, n, head.Record, RecordToolset)
		case head.Record != "":
			return fmt.Errorf("%w: record %d: unknown record %q", ErrRolloutFile, n, head.Record)
		}
		var ts *Toolset
		if head.Toolset != nil {
			if ts = toolsets[*head.Toolset]; ts == nil {
				return fmt.Errorf("%w: record %d: toolset %q is not defined before it", ErrRolloutFile, n, *head.Toolset)
			}
		}
		var ro Rollout
		var err error
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
