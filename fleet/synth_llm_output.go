package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// SynthLLMOutput writes each scenario of an LLM synthesis run where a
// local run (llm.Run) writes it: OUTDIR/NAME (source), OUTDIR/NAME.wasm
// (bundle), OUTDIR/reports/NAME.json, the stage artifacts into
// OUTDIR/.synth-cache (a later local run over OUTDIR resumes from them),
// and keeps the reports, in plan order, for the batch report
// (llm.BatchReport.Finish). Nothing is removed on Abort: as after a local
// run that stops, what was written is whole and stays.
type SynthLLMOutput struct {
	dir     string
	names   []string // by plan index
	Reports []llm.EnvReport
}

// CreateSynthLLMOutput writes the scenarios of refs (in plan order) into dir.
func CreateSynthLLMOutput(dir string, refs []GroupRef) *SynthLLMOutput {
	o := &SynthLLMOutput{dir: dir}
	for _, r := range refs {
		o.names = append(o.names, r.Env)
	}
	return o
}

// cacheEntry is the one shape of a stage artifact (synth/llm/store.go).
var cacheEntry = regexp.MustCompile(`^\.synth-cache/[0-9a-f]{2}/[0-9a-f]{16}\.json$`)

// WriteGroup writes the next scenario's archive. Its entries must be the
// scenario's own: its source directory, bundle and report and stage
// artifacts; anything else fails the run and is not written.
func (o *SynthLLMOutput) WriteGroup(tarball []byte) error {
	i := len(o.Reports)
	if i >= len(o.names) {
		return errorf(CodeLost, nil, "more scenarios than planned")
	}
	name := o.names[i]
	fail := func(err error) error { return errorf(CodeLost, err, "scenario %s's archive", name) }
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(o.dir, ".synth-unit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := untar(tarball, tmp, "out"); err != nil {
		return err
	}
	got := filepath.Join(tmp, "out")
	var rep llm.EnvReport
	files := map[string]bool{}
	err = filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == got {
			return err
		}
		rel, _ := filepath.Rel(got, p)
		rel = filepath.ToSlash(rel)
		first, _, _ := strings.Cut(rel, "/")
		switch {
		case first == name:
			if d.IsDir() && rel == name {
				files[name+"/"] = true
			}
			return nil
		case d.IsDir() && (rel == "reports" || rel == ".synth-cache" || strings.HasPrefix(rel, ".synth-cache/") && !strings.Contains(rel[len(".synth-cache/"):], "/")):
			return nil
		case rel == name+".wasm" || rel == "reports/"+name+".json" || cacheEntry.MatchString(rel):
			files[rel] = true
			return nil
		}
		return fmt.Errorf("entry %s is not scenario %s's", truncate(rel, 80), name)
	})
	if err != nil {
		return fail(err)
	}
	b, err := os.ReadFile(filepath.Join(got, "reports", name+".json"))
	if err != nil {
		return fail(errors.New("no report"))
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Scenario.Name != name {
		return fail(fmt.Errorf("the report is not scenario %s's (%v)", name, err))
	}
	if rep.Kept != files[name+"/"] || rep.Kept != files[name+".wasm"] {
		return fail(fmt.Errorf("kept %v with the source %v and the bundle %v", rep.Kept, files[name+"/"], files[name+".wasm"]))
	}
	// A stage artifact must be this scenario's (a later local run over
	// OUTDIR takes it without asking the model), and one OUTDIR has is
	// never replaced by other bytes.
	var artifacts []string
	for rel := range files {
		if !cacheEntry.MatchString(rel) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(got, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if sc, err := llm.ArtifactScenario(b); err != nil || sc != name {
			return fail(fmt.Errorf("stage artifact %s is not scenario %s's (%q, %v)", rel, name, truncate(sc, 64), err))
		}
		if have, err := os.ReadFile(filepath.Join(o.dir, filepath.FromSlash(rel))); err == nil {
			if !bytes.Equal(have, b) {
				return fail(fmt.Errorf("stage artifact %s would replace the one in %s with other bytes", rel, o.dir))
			}
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		artifacts = append(artifacts, rel)
	}
	// Everything is read and checked: move it into place.
	for _, rel := range artifacts {
		dst := filepath.Join(o.dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		// A link, not a rename: an artifact that appeared meanwhile is
		// not replaced.
		if err := os.Link(filepath.Join(got, filepath.FromSlash(rel)), dst); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	if rep.Kept {
		rep.Dir, rep.Bundle = filepath.Join(o.dir, name), filepath.Join(o.dir, name+".wasm")
		if err := os.RemoveAll(rep.Dir); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(got, name), rep.Dir); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(got, name+".wasm"), rep.Bundle); err != nil {
			return err
		}
	}
	// The report as runEnv writes it, with this directory's paths.
	if b, err = json.MarshalIndent(rep, "", "  "); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(o.dir, "reports"), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(o.dir, "reports", name+".json"), b); err != nil {
		return err
	}
	o.Reports = append(o.Reports, rep)
	return nil
}

// Close writes nothing: the batch report is the caller's (llm.BatchReport.Finish).
func (o *SynthLLMOutput) Close() error { return nil }

// Abort keeps what was written (see SynthLLMOutput).
func (o *SynthLLMOutput) Abort() {}
