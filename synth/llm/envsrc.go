package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// envSource is an environment source directory in memory.
//
// TODO(synth): replace with synth/emit's Env and Write ("same emitter")
// once that package is on main; the fields are the same.
type envSource struct {
	Name        string
	Version     string
	Description string
	Rules       string
	Clock       time.Time
	Schema      string
	Seed        string
	Tools       map[string][]byte
	Tasks       []envpkg.Task
}

// writeEnvSource writes e to dir (replacing it), through a temporary
// directory renamed into place.
func writeEnvSource(dir string, e *envSource) error {
	y := map[string]any{"name": e.Name, "version": e.Version, "description": e.Description}
	if e.Rules != "" {
		y["rules"] = e.Rules
	}
	if !e.Clock.IsZero() {
		y["clock"] = e.Clock.UTC().Format(time.RFC3339)
	}
	var yb bytes.Buffer
	enc := yaml.NewEncoder(&yb)
	enc.SetIndent(2)
	if err := enc.Encode(y); err != nil {
		return err
	}
	files := map[string][]byte{"env.yaml": yb.Bytes(), "schema.sql": []byte(e.Schema)}
	if e.Seed != "" {
		files["seed.sql"] = []byte(e.Seed)
	}
	for n, src := range e.Tools {
		if filepath.Base(n) != n || filepath.Ext(n) != ".go" {
			return fmt.Errorf("tool file name %q: want NAME.go", n)
		}
		files["tools/"+n] = src
	}
	if len(e.Tasks) > 0 {
		var tb bytes.Buffer
		for _, t := range e.Tasks {
			b, err := json.Marshal(t)
			if err != nil {
				return err
			}
			tb.Write(b)
			tb.WriteByte('\n')
		}
		files["tasks.jsonl"] = tb.Bytes()
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}
