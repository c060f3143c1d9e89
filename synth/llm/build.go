package llm

import (
	"context"
	"encoding/json"
	"go/format"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// Building an environment from the stages' outputs.

// build writes the environment with the given code and tasks to the work
// directory and compiles it. Compiler errors come back as problems, with
// paths relative to the environment directory; a loaded Env comes back
// when the build succeeded. A state built before (the verifiers' accepted
// tasks, built again for the probes) reuses that bundle: one build per
// state.
func (r *envRun) build(ctx context.Context, code map[string][]byte, tasks []envpkg.Task) (*runtime.Env, *envpkg.Bundle, []string, error) {
	src := r.source(code, tasks)
	key, err := json.Marshal(src) // map keys sorted: equal states, equal keys
	if err != nil {
		return nil, nil, nil, err
	}
	b := r.built[string(key)]
	if b == nil {
		if err := emit.Write(r.workDir, src); err != nil {
			return nil, nil, nil, err
		}
		if b, err = compiler.Build(ctx, r.workDir, r.p.cfg.Compiler); err != nil {
			if ctx.Err() != nil {
				return nil, nil, nil, ctx.Err()
			}
			return nil, nil, compilerProblems(err, r.workDir), nil
		}
		r.built = map[string]*envpkg.Bundle{string(key): b} // the last state only
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		return nil, nil, []string{"the bundle does not load: " + err.Error()}, nil
	}
	return env, b, nil, nil
}

// source is the environment in the shared emitter's form (the same
// emitter as synth from-db).
func (r *envRun) source(code map[string][]byte, tasks []envpkg.Task) *emit.Env {
	return &emit.Env{
		Name: emit.EnvName(r.sc.Name), Version: "1.0.0", Description: r.sc.Description, Rules: r.rules,
		Clock: r.p.cfg.Clock, Schema: strings.Join(withSemicolons(r.schema), "\n\n") + "\n",
		Seed: strings.Join(withSemicolons(r.data), "\n") + "\n", Tools: gofmtAll(code), Tasks: tasks,
	}
}

// gofmtAll formats each Go file as gofmt would, so a written environment
// passes a repository's gofmt check whatever spacing the model chose; a
// file that does not parse is kept as it is (the compiler reports it).
func gofmtAll(code map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(code))
	for name, src := range code {
		out[name] = src
		if strings.HasSuffix(name, ".go") {
			if b, err := format.Source(src); err == nil {
				out[name] = b
			}
		}
	}
	return out
}

func withSemicolons(stmts []string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		s = strings.TrimSpace(s)
		if !strings.HasSuffix(s, ";") {
			s += ";"
		}
		out[i] = s
	}
	return out
}

// compilerProblems splits a compiler error into lines, one problem each,
// with the work directory removed from paths (tools/x.go:12:3: …).
func compilerProblems(err error, dir string) []string {
	msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "go build failed:" {
			out = append(out, l)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
