package runtime

import (
	"errors"

	"github.com/tetratelabs/wazero"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/pywasm"
)

// ErrPythonEngine is the error of an engine that cannot run a Python
// bundle (wasmtime: the interpreter's read-only mounts are wazero's).
var ErrPythonEngine = errors.New("Python environments run on the wazero engine only")

// guestCode returns the module to run for b and the guest's read-only
// mounts. A Go bundle's module is its compiled tool code, with no files. A
// Python bundle's module is a stub (internal/pywasm) naming the interpreter
// and holding the tool files: it runs this wasmenv's CPython, if that is
// the interpreter the bundle was built for, with the stdlib, the Python sdk
// and the tool files mounted. Each instance is one interpreter, pooled and
// shared by episodes like a Go module instance.
func guestCode(b *envpkg.Bundle) ([]byte, []pywasm.Mount, error) {
	stub, err := pywasm.ParseStub(b.Module)
	if errors.Is(err, pywasm.ErrNotPython) {
		return b.Module, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if err := stub.Check(); err != nil {
		return nil, nil, err
	}
	in, err := pywasm.Interpreter()
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(b.Manifest.Tools))
	for i, t := range b.Manifest.Tools {
		names[i] = t.Name
	}
	mounts, err := stub.Mounts(in, names)
	if err != nil {
		return nil, nil, err
	}
	return in.Module, mounts, nil
}

// guestFS is the wazero file system of mounts; nil when there are none.
func guestFS(mounts []pywasm.Mount) wazero.FSConfig {
	if len(mounts) == 0 {
		return nil
	}
	c := wazero.NewFSConfig()
	for _, m := range mounts {
		c = c.WithFSMount(m.FS, m.Dir)
	}
	return c
}
