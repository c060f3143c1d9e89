package emit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Env is an environment source directory in memory.
type Env struct {
	Name        string // [a-z0-9][a-z0-9-]*
	Version     string
	Description string
	Rules       string
	Clock       time.Time // zero: the format's default
	CallTimeout time.Duration
	Schema      string            // schema.sql
	Seed        string            // seed.sql, optional
	Imports     []Import          // env.yaml imports, in order
	Files       map[string][]byte // other files by slash path (data/x.jsonl, README.md, graph.json)
	Tools       map[string][]byte // tools/<name>.go (or .py: docs/PYTHON.md)
	Tasks       []envpkg.Task     // written to tasks.jsonl
}

// Import is one env.yaml import.
type Import struct {
	File       string `yaml:"file"`
	Table      string `yaml:"table"`
	KeyColumn  string `yaml:"key_column,omitempty"`
	JSONColumn string `yaml:"json_column,omitempty"`
}

// ErrInvalid is wrapped by errors about an Env that cannot be written.
var ErrInvalid = errors.New("emit: invalid environment")

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// EnvName turns any text into a valid environment name.
func EnvName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	n := strings.Trim(b.String(), "-")
	if len(n) > 64 {
		n = strings.Trim(n[:64], "-")
	}
	if n == "" {
		n = "env"
	}
	return n
}

type envYAML struct {
	Name        string   `yaml:"name"`
	Version     string   `yaml:"version,omitempty"`
	Description string   `yaml:"description,omitempty"`
	Rules       string   `yaml:"rules,omitempty"`
	Clock       string   `yaml:"clock,omitempty"`
	Imports     []Import `yaml:"imports,omitempty"`
	Limits      *limits  `yaml:"limits,omitempty"`
}

type limits struct {
	CallTimeout string `yaml:"call_timeout,omitempty"`
}

func (e *Env) render() (map[string][]byte, error) {
	if !nameRE.MatchString(e.Name) {
		return nil, fmt.Errorf("%w: name %q must match %s", ErrInvalid, e.Name, nameRE)
	}
	if strings.TrimSpace(e.Schema) == "" {
		return nil, fmt.Errorf("%w: empty schema", ErrInvalid)
	}
	if len(e.Tools) == 0 {
		return nil, fmt.Errorf("%w: no tools", ErrInvalid)
	}
	y := envYAML{Name: e.Name, Version: e.Version, Description: e.Description, Rules: e.Rules, Imports: e.Imports}
	if !e.Clock.IsZero() {
		y.Clock = e.Clock.UTC().Format(time.RFC3339)
	}
	if e.CallTimeout > 0 {
		y.Limits = &limits{CallTimeout: e.CallTimeout.String()}
	}
	var yb bytes.Buffer
	enc := yaml.NewEncoder(&yb)
	enc.SetIndent(2)
	if err := enc.Encode(y); err != nil {
		return nil, err
	}
	out := map[string][]byte{
		"env.yaml":   yb.Bytes(),
		"schema.sql": []byte(e.Schema),
	}
	if e.Seed != "" {
		out["seed.sql"] = []byte(e.Seed)
	}
	for name, src := range e.Tools {
		if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".py")) {
			return nil, fmt.Errorf("%w: tool file name %q", ErrInvalid, name)
		}
		out["tools/"+name] = src
	}
	for p, b := range e.Files {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil, fmt.Errorf("%w: file %q is outside the directory", ErrInvalid, p)
		}
		if _, dup := out[p]; dup {
			return nil, fmt.Errorf("%w: file %q given twice", ErrInvalid, p)
		}
		out[p] = b
	}
	if len(e.Tasks) > 0 {
		var tb bytes.Buffer
		ids := map[string]bool{}
		for _, t := range e.Tasks {
			if ids[t.ID] {
				return nil, fmt.Errorf("%w: task id %q repeated", ErrInvalid, t.ID)
			}
			ids[t.ID] = true
			line, err := json.Marshal(t)
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", t.ID, err)
			}
			tb.Write(line)
			tb.WriteByte('\n')
		}
		out["tasks.jsonl"] = tb.Bytes()
	}
	return out, nil
}

// Write writes the environment to dir, replacing what is there. The files
// are written to a temporary directory next to dir and renamed into place;
// on error dir is left as it was.
func Write(dir string, e *Env) error {
	files, err := e.render()
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, files[p], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	// Replace: move the old directory aside, rename the new one in, then
	// delete the old one. A crash in between leaves the old one beside.
	var old string
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("emit: %s exists and is not a directory", dir)
		}
		if err := checkReplaceable(dir); err != nil {
			return err
		}
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// CheckOut reports whether dir can receive an environment: absent, an
// empty folder, or a folder holding an environment (which Write replaces).
// Run it before long work, so that a mistyped -o fails at once.
func CheckOut(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("emit: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("emit: %s exists and is not a directory", dir)
	}
	return checkReplaceable(dir)
}

// checkReplaceable refuses to replace a non-empty directory that does not
// look like an environment, so a mistyped -o cannot delete someone's files.
func checkReplaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "env.yaml")); err != nil {
		return fmt.Errorf("emit: %s is not empty and has no env.yaml; refusing to replace it", dir)
	}
	return nil
}
