package retain

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/runtime"
)

// ReportSuffix names the gate's report beside a bundle it gated:
// NAME.wasm gets NAME.wasm.retention.json.
const ReportSuffix = ".retention.json"

// GateBundle runs the gate on the bundle at path and rewrites it with the
// kept tasks (each with its measured pass rate), writing the report beside
// it; each file is written whole or not at all. It returns the report and
// the kept tasks. A bundle left with no task is not rewritten: that is an
// error, the bundle as it was.
func GateBundle(ctx context.Context, path string, cfg Config, opts runtime.Options) (*Report, []envpkg.Task, error) {
	b, err := envpkg.Read(path)
	if err != nil {
		return nil, nil, err
	}
	env, err := runtime.LoadBundle(ctx, b, opts)
	if err != nil {
		return nil, nil, err
	}
	rep, err := Run(ctx, env, cfg)
	env.Close()
	if err != nil {
		return nil, nil, err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if err := atomicfile.WriteFile(path+ReportSuffix, append(data, '\n')); err != nil {
		return nil, nil, err
	}
	kept := rep.Apply(b.Tasks)
	if len(kept) == 0 {
		return rep, nil, fmt.Errorf("retain: the gate dropped every task of %s (see %s)", path, path+ReportSuffix)
	}
	b.Tasks = kept
	enc, err := envpkg.Encode(b)
	if err != nil {
		return nil, nil, err
	}
	if err := envpkg.WriteFileAtomic(path, enc); err != nil {
		return nil, nil, err
	}
	return rep, kept, nil
}
