package pywasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// describeTool is the tool index that asks the bootstrap for checks and schemas.
const describeTool = 0xFFFFFFFF

// Tool is one tool function as the build sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // the input JSON Schema
}

// SourceErrors are the build's refusals of tool files, "tools/x.py:line: why".
type SourceErrors []string

func (e SourceErrors) Error() string {
	var b bytes.Buffer
	for i, s := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	return b.String()
}

// describeTimeout bounds the build's run of the tool files (their imports
// run module code, which the checks allow only as constants and defs).
const describeTimeout = 60 * time.Second

// Describe checks the stub's tool files and returns their tools in
// dispatch order, running them in the interpreter with no database (the
// host functions refuse). cacheDir, when not empty, caches wazero's
// compiled interpreter.
func Describe(ctx context.Context, s *Stub, cacheDir string) ([]Tool, error) {
	in, err := Interpreter()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	rc := wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true).WithMemoryLimitPages(256 * 16)
	if cacheDir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	defer rt.Close(context.Background())
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	_, err = rt.NewHostModuleBuilder(wire.HostModule).
		NewFunctionBuilder().WithFunc(func(uint32, uint32) int32 { return -1 }).Export(wire.ImportSQL).
		NewFunctionBuilder().WithFunc(func(uint32) {}).Export(wire.ImportTake).
		NewFunctionBuilder().WithFunc(func() int64 { return 0 }).Export(wire.ImportClock).
		NewFunctionBuilder().WithFunc(func() int64 { return 0 }).Export(wire.ImportRandom).
		NewFunctionBuilder().WithFunc(func(uint32, uint32) {}).Export(wire.ImportLog).
		Instantiate(ctx)
	if err != nil {
		return nil, err
	}
	mounts, err := s.Mounts(in, nil)
	if err != nil {
		return nil, err
	}
	fsc := wazero.NewFSConfig()
	for _, m := range mounts {
		fsc = fsc.WithFSMount(m.FS, m.Dir)
	}
	var stderr bytes.Buffer
	mod, err := rt.InstantiateWithConfig(ctx, in.Module, wazero.NewModuleConfig().
		WithStartFunctions("_initialize").WithFSConfig(fsc).WithStderr(&stderr))
	if err != nil {
		return nil, fmt.Errorf("pywasm: starting the interpreter: %w\n%s", err, stderr.Bytes())
	}
	out, err := call(ctx, mod, describeTool, nil)
	if err != nil {
		return nil, fmt.Errorf("pywasm: describing the tools: %w\n%s", err, stderr.Bytes())
	}
	if len(out) == 0 || out[0] != wire.CallOK {
		return nil, fmt.Errorf("pywasm: describing the tools failed: %s", out)
	}
	var answer struct {
		Errors []string `json:"errors"`
		Tools  []Tool   `json:"tools"`
	}
	if err := json.Unmarshal(out[1:], &answer); err != nil {
		return nil, fmt.Errorf("pywasm: describe answer: %w", err)
	}
	if len(answer.Errors) > 0 {
		return nil, SourceErrors(answer.Errors)
	}
	return answer.Tools, nil
}

// call runs one wasmenv_call on mod and copies its output.
func call(ctx context.Context, mod api.Module, tool uint32, args []byte) ([]byte, error) {
	res, err := mod.ExportedFunction(wire.ExportBuffer).Call(ctx, uint64(len(args)))
	if err != nil {
		return nil, err
	}
	if len(args) > 0 && !mod.Memory().Write(uint32(res[0]), args) {
		return nil, errors.New("argument buffer out of range")
	}
	res, err = mod.ExportedFunction(wire.ExportCall).Call(ctx, uint64(tool), uint64(len(args)))
	if err != nil {
		return nil, err
	}
	out, ok := mod.Memory().Read(uint32(res[0]>>32), uint32(res[0]))
	if !ok {
		return nil, errors.New("output out of range")
	}
	return bytes.Clone(out), nil
}
