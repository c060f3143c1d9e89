package compiler

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/pywasm"
)

// buildPython builds an environment whose tools are tools/*.py. There is
// nothing to compile: the bundle's module is a stub holding the Python
// files and naming the interpreter (internal/pywasm), which every wasmenv
// ships. The build runs the files in that interpreter once, with no
// database, for the static checks (allowed imports, no module state; see
// sdk/python/py/_wasmenv_check.py) and the tools' JSON Schemas, which
// follow transformers' get_json_schema rules (type hints and a Google-style
// docstring per function).
func buildPython(ctx context.Context, dir string, opts Options, src *source) (*envpkg.Bundle, []byte, error) {
	if err := checkSourceSize(dir, src.pyTools, opts.maxSourceBytes()); err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{}
	for name, b := range src.pyTools {
		files["tools/"+name] = b
	}
	stub := pywasm.NewStub(files)
	opts.logf("checking %d Python tool files in %s", len(files), pywasm.Version)
	tools, err := pywasm.Describe(ctx, &stub, filepath.Join(opts.CacheDir, "wazero-python"))
	if err != nil {
		var bad pywasm.SourceErrors
		if errors.As(err, &bad) {
			return nil, nil, sourceErrors(dir, bad)
		}
		return nil, nil, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		src.manifest.Tools = append(src.manifest.Tools, envpkg.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
		names[i] = t.Name
	}
	if err := validateTasks(src, names); err != nil {
		return nil, nil, err
	}
	db, err := buildDB(src)
	if err != nil {
		return nil, nil, err
	}
	module, err := stub.Encode()
	if err != nil {
		return nil, nil, err
	}
	src.manifest.Toolchain = pywasm.Version
	// Calls cannot see what earlier calls did: module state is refused at
	// build and undone by the bootstrap's guard after every call.
	src.manifest.GuestPatches = GuestPatchLevel
	b := &envpkg.Bundle{Manifest: src.manifest, Module: module, DB: db, Tasks: src.tasks}
	data, err := envpkg.Encode(b)
	if err != nil {
		return nil, nil, err
	}
	return b, data, nil
}

// sourceErrors places the interpreter's "tools/x.py:line: why" under dir.
func sourceErrors(dir string, bad pywasm.SourceErrors) error {
	var list ErrorList
	for _, s := range bad {
		pos, msg, ok := strings.Cut(s, ": ")
		if !ok {
			pos, msg = "tools", s
		}
		list = append(list, &Error{Pos: filepath.Join(dir, pos), Msg: msg})
	}
	return list
}
