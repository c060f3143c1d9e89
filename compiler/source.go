package compiler

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// envYAML is env.yaml as written by authors.
type envYAML struct {
	Name        string       `yaml:"name"`
	Version     string       `yaml:"version"`
	Description string       `yaml:"description"`
	Rules       string       `yaml:"rules"`
	Credit      string       `yaml:"credit"`
	Clock       string       `yaml:"clock"`
	Imports     []importSpec `yaml:"imports"`
	Export      yaml.Node    `yaml:"export"`
	Limits      limitsYAML   `yaml:"limits"`
}

type importSpec struct {
	File       string `yaml:"file"`
	Table      string `yaml:"table"`
	KeyColumn  string `yaml:"key_column"`
	JSONColumn string `yaml:"json_column"`
}

type limitsYAML struct {
	CallTimeout    string `yaml:"call_timeout"`
	MemoryMB       int    `yaml:"memory_mb"`
	MaxOutputBytes int    `yaml:"max_output_bytes"`
	MaxWriteMB     int    `yaml:"max_write_mb"`
}

type exportYAML struct {
	Query  string   `yaml:"query"`
	Tables []string `yaml:"tables"`
}

// source is a loaded environment directory.
type source struct {
	dir      string
	manifest envpkg.Manifest
	imports  []importSpec
	schema   string // schema.sql
	seed     string // seed.sql, may be empty
	tasks    []envpkg.Task
	taskPos  []taskPos         // where each task is, parallel to tasks
	tools    map[string][]byte // tools/*.go by base name
	pyTools  map[string][]byte // tools/*.py by base name (a Python environment; python.go)
}

// Error is a problem in an environment source, with its place.
type Error struct {
	Pos string // file or file:line
	Msg string
}

func (e *Error) Error() string { return e.Pos + ": " + e.Msg }

func errAt(pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is several source errors, reported together.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func loadSource(dir string) (*source, error) {
	s := &source{dir: dir, tools: map[string][]byte{}, pyTools: map[string][]byte{}}
	envPath := filepath.Join(dir, "env.yaml")
	raw, err := os.ReadFile(envPath)
	if err != nil {
		return nil, errAt(envPath, "cannot read: %v", err)
	}
	var y envYAML
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&y); err != nil {
		return nil, yamlError(envPath, raw, err)
	}
	root := yamlRoot(raw)
	at := func(key ...string) string { return fmt.Sprintf("%s:%d", envPath, keyLine(root, key...)) }
	if !envpkg.ValidEnvName(y.Name) {
		return nil, errAt(at("name"), "name %q: an environment name is 1 to 64 lowercase letters, digits and '-', not starting with '-' (e.g. %q)",
			y.Name, suggestName(y.Name))
	}
	m := envpkg.Manifest{Name: y.Name, Version: y.Version, Description: strings.TrimSpace(y.Description),
		Rules: strings.TrimSpace(y.Rules), Credit: y.Credit, Limits: envpkg.DefaultLimits}
	switch m.Credit {
	case "", envpkg.CreditPartial, envpkg.CreditAll:
	default:
		return nil, errAt(at("credit"), "credit %q: want %s (the fraction of the checks passed, the default) or %s (1 only when every check passes)", m.Credit, envpkg.CreditPartial, envpkg.CreditAll)
	}
	if m.Version == "" {
		m.Version = "0.0.0"
	}
	m.Clock = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if y.Clock != "" {
		if m.Clock, err = time.Parse(time.RFC3339, y.Clock); err != nil {
			return nil, errAt(at("clock"), "clock: %q is not an RFC 3339 time (e.g. 2024-05-15T09:00:00Z)", y.Clock)
		}
		m.Clock = m.Clock.UTC()
	}
	if y.Limits.CallTimeout != "" {
		d, err := time.ParseDuration(y.Limits.CallTimeout)
		if err != nil || d < time.Millisecond || d.Milliseconds() > envpkg.MaxCallTimeoutMS {
			return nil, errAt(at("limits", "call_timeout"), "limits.call_timeout: %q is not a positive duration from 1ms to 10m (e.g. 2s, 500ms)", y.Limits.CallTimeout)
		}
		m.Limits.CallTimeoutMS = d.Milliseconds()
	}
	if y.Limits.MemoryMB != 0 {
		if y.Limits.MemoryMB < 1 || y.Limits.MemoryMB > envpkg.MaxMemoryMB {
			return nil, errAt(at("limits", "memory_mb"), "limits.memory_mb: %d is out of range (1 to %d)", y.Limits.MemoryMB, envpkg.MaxMemoryMB)
		}
		m.Limits.MemoryMB = y.Limits.MemoryMB
	}
	if y.Limits.MaxOutputBytes != 0 {
		if y.Limits.MaxOutputBytes < 1 || y.Limits.MaxOutputBytes > envpkg.MaxOutputBytesCap {
			return nil, errAt(at("limits", "max_output_bytes"), "limits.max_output_bytes: %d is out of range (1 to %d)", y.Limits.MaxOutputBytes, envpkg.MaxOutputBytesCap)
		}
		m.Limits.MaxOutputBytes = y.Limits.MaxOutputBytes
	}
	if y.Limits.MaxWriteMB != 0 {
		if y.Limits.MaxWriteMB < 1 || y.Limits.MaxWriteMB > envpkg.MaxWriteMB {
			return nil, errAt(at("limits", "max_write_mb"), "limits.max_write_mb: %d is out of range (1 to %d)", y.Limits.MaxWriteMB, envpkg.MaxWriteMB)
		}
		m.Limits.MaxWriteMB = y.Limits.MaxWriteMB
	}
	// export keeps the author's order, so it is read from the node.
	if y.Export.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(y.Export.Content); i += 2 {
			var e exportYAML
			if err := y.Export.Content[i+1].Decode(&e); err != nil {
				return nil, errAt(fmt.Sprintf("%s:%d", envPath, y.Export.Content[i].Line), "export: %v", err)
			}
			m.Export = append(m.Export, envpkg.Collection{Name: y.Export.Content[i].Value, Query: e.Query, Tables: e.Tables})
		}
	} else if y.Export.Kind != 0 {
		return nil, errAt(at("export"), "export must be a mapping of collection name to {query, tables}")
	}
	s.manifest = m
	s.imports = y.Imports

	schemaPath := filepath.Join(dir, "schema.sql")
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, errAt(schemaPath, "cannot read: %v", err)
	}
	s.schema = string(b)
	if b, err := os.ReadFile(filepath.Join(dir, "seed.sql")); err == nil {
		s.seed = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	toolDir := filepath.Join(dir, "tools")
	entries, err := os.ReadDir(toolDir)
	if err != nil {
		return nil, errAt(toolDir, "cannot read tools: %v", err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			if s.tools[e.Name()], err = os.ReadFile(filepath.Join(toolDir, e.Name())); err != nil {
				return nil, err
			}
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".py") {
			if s.pyTools[e.Name()], err = os.ReadFile(filepath.Join(toolDir, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case len(s.tools) > 0 && len(s.pyTools) > 0:
		return nil, errAt(toolDir, "both .go and .py files: an environment's tools are written in one language")
	case len(s.tools) == 0 && len(s.pyTools) == 0:
		return nil, errAt(toolDir, "no .go or .py files")
	}
	if s.tasks, s.taskPos, err = loadTasks(dir); err != nil {
		return nil, err
	}
	return s, nil
}

// taskYAML mirrors envpkg.Task with arguments as free-form YAML.
type taskYAML struct {
	ID          string         `yaml:"id"`
	Instruction string         `yaml:"instruction"`
	Persona     string         `yaml:"persona"`
	Setup       string         `yaml:"setup"`
	Calls       []callYAML     `yaml:"calls"`
	Checks      []envpkg.Check `yaml:"checks"`
	Answer      *envpkg.Answer `yaml:"answer"`
	Reward      string         `yaml:"reward"`
}

type callYAML struct {
	Name      string         `yaml:"name"`
	Arguments map[string]any `yaml:"arguments"`
}

func loadTasks(dir string) ([]envpkg.Task, []taskPos, error) {
	var tasks []envpkg.Task
	var pos []taskPos
	yamlPath := filepath.Join(dir, "tasks.yaml")
	if raw, err := os.ReadFile(yamlPath); err == nil {
		var ty []taskYAML
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&ty); err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, yamlError(yamlPath, raw, err)
		}
		pos = yamlTaskPos(yamlPath, yamlRoot(raw))
		for len(pos) < len(ty) {
			pos = append(pos, taskPos{file: yamlPath})
		}
		for i, t := range ty {
			task := envpkg.Task{ID: t.ID, Instruction: strings.TrimSpace(t.Instruction), Persona: t.Persona,
				Setup: t.Setup, Checks: t.Checks, Answer: t.Answer, Reward: t.Reward, Calls: []envpkg.Call{}}
			for j, c := range t.Calls {
				args := c.Arguments
				if args == nil {
					args = map[string]any{}
				}
				b, err := json.Marshal(args)
				if err != nil {
					return nil, nil, errAt(pos[i].call(j), "task %d (%s) call %d: arguments: %v", i+1, t.ID, j+1, err)
				}
				task.Calls = append(task.Calls, envpkg.Call{Name: c.Name, Arguments: b})
			}
			if task.Checks == nil {
				task.Checks = []envpkg.Check{}
			}
			tasks = append(tasks, task)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	jsonlPath := filepath.Join(dir, "tasks.jsonl")
	if f, err := os.Open(jsonlPath); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var t envpkg.Task
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&t); err != nil {
				return nil, nil, errAt(fmt.Sprintf("%s:%d", jsonlPath, line), "%v", err)
			}
			for j := range t.Calls {
				if len(t.Calls[j].Arguments) == 0 {
					t.Calls[j].Arguments = json.RawMessage(`{}`)
				}
			}
			if t.Calls == nil {
				t.Calls = []envpkg.Call{}
			}
			if t.Checks == nil {
				t.Checks = []envpkg.Check{}
			}
			tasks = append(tasks, t)
			pos = append(pos, taskPos{file: jsonlPath, line: line})
		}
		if err := sc.Err(); err != nil {
			return nil, nil, errAt(jsonlPath, "%v", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	return tasks, pos, nil
}
