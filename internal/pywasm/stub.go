package pywasm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/wasmenv/wasmenv/sdk/python"
)

// SectionName is the custom section of a Python bundle's stub module.
const SectionName = "wasmenv-python"

// Stub is what a Python bundle carries instead of compiled tool code.
type Stub struct {
	Interpreter  string            `json:"interpreter"` // Version
	ModuleSHA256 string            `json:"python_wasm_sha256"`
	StdlibSHA256 string            `json:"stdlib_sha256"`
	Files        map[string]string `json:"files"` // "tools/x.py" -> source
}

var wasmHeader = []byte{0, 'a', 's', 'm', 1, 0, 0, 0}

// NewStub returns the stub of files (paths relative to the environment).
func NewStub(files map[string][]byte) Stub {
	s := Stub{Interpreter: Version, ModuleSHA256: ModuleSHA256, StdlibSHA256: StdlibSHA256, Files: map[string]string{}}
	for name, b := range files {
		s.Files[name] = string(b)
	}
	return s
}

// Encode returns the stub as a WebAssembly module: the header and one
// custom section.
func (s Stub) Encode() ([]byte, error) {
	payload, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var sec []byte
	sec = binary.AppendUvarint(sec, uint64(len(SectionName)))
	sec = append(sec, SectionName...)
	sec = append(sec, payload...)
	out := append([]byte{}, wasmHeader...)
	out = append(out, 0)
	out = binary.AppendUvarint(out, uint64(len(sec)))
	return append(out, sec...), nil
}

// ErrNotPython means a module is not a Python stub (it is compiled tool code).
var ErrNotPython = errors.New("pywasm: not a Python stub module")

// ParseStub reads a stub module; ErrNotPython when module is anything else.
func ParseStub(module []byte) (*Stub, error) {
	rest, ok := bytes.CutPrefix(module, wasmHeader)
	if !ok || len(rest) == 0 || rest[0] != 0 {
		return nil, ErrNotPython
	}
	size, n := binary.Uvarint(rest[1:])
	if n <= 0 || uint64(len(rest)-1-n) != size {
		return nil, ErrNotPython
	}
	sec := rest[1+n:]
	nameLen, m := binary.Uvarint(sec)
	if m <= 0 || uint64(len(sec)-m) < nameLen || string(sec[m:m+int(nameLen)]) != SectionName {
		return nil, ErrNotPython
	}
	var s Stub
	if err := json.Unmarshal(sec[m+int(nameLen):], &s); err != nil {
		return nil, fmt.Errorf("pywasm: stub section: %w", err)
	}
	for name := range s.Files {
		if !fs.ValidPath(name) || !strings.HasPrefix(name, "tools/") || path.Ext(name) != ".py" {
			return nil, fmt.Errorf("pywasm: stub holds %q: want tools/*.py", name)
		}
	}
	return &s, nil
}

// ErrInterpreterMismatch means a bundle was built for another interpreter.
type ErrInterpreterMismatch struct{ Bundle, Have string }

func (e *ErrInterpreterMismatch) Error() string {
	return fmt.Sprintf("pywasm: the bundle was built for Python interpreter %s, this wasmenv has %s: rebuild the bundle", e.Bundle, e.Have)
}

// Check reports whether this wasmenv's interpreter is the one the stub names.
func (s *Stub) Check() error {
	if s.ModuleSHA256 != ModuleSHA256 || s.StdlibSHA256 != StdlibSHA256 {
		return &ErrInterpreterMismatch{Bundle: s.Interpreter + " " + short(s.ModuleSHA256) + "/" + short(s.StdlibSHA256),
			Have: Version + " " + short(ModuleSHA256) + "/" + short(StdlibSHA256)}
	}
	return nil
}

func short(h string) string { return h[:min(12, len(h))] }

// Mounts returns the guest's file system for the stub's files: the stdlib,
// the Python sdk and the environment. toolNames, when not nil, is the
// manifest's tool order, which the bootstrap dispatches by.
func (s *Stub) Mounts(in *Interp, toolNames []string) ([]Mount, error) {
	sdk, err := fs.Sub(python.Files, "py")
	if err != nil {
		return nil, err
	}
	env := fstest.MapFS{}
	for name, src := range s.Files {
		env[name] = &fstest.MapFile{Data: []byte(src), Mode: 0o444}
	}
	env["tools"] = &fstest.MapFile{Mode: fs.ModeDir | 0o555} // present even with no files
	if toolNames != nil {
		names, err := json.Marshal(toolNames)
		if err != nil {
			return nil, err
		}
		env["wasmenv_tools.json"] = &fstest.MapFile{Data: names, Mode: 0o444}
	}
	lib, err := fs.Sub(in.Stdlib, ".")
	if err != nil {
		return nil, err
	}
	return []Mount{{FS: lib, Dir: "/lib/python3.13"}, {FS: sdk, Dir: "/wasmenv"}, {FS: env, Dir: "/env"}}, nil
}
