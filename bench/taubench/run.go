package taubench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/runtime"
)

// LoadEnv loads the bundle at bundlePath, or builds envDir in memory when
// bundlePath is empty. The returned duration covers loading only (reading
// and decoding the file, compiling or fetching the cached machine code,
// preparing the base snapshot), not building.
func LoadEnv(ctx context.Context, bundlePath, envDir string) (*runtime.Env, time.Duration, error) {
	return LoadEnvOn(ctx, "", bundlePath, envDir)
}

// LoadEnvOn is LoadEnv on a WebAssembly engine (runtime.Engines; ""
// is the default, wazero).
func LoadEnvOn(ctx context.Context, engine, bundlePath, envDir string) (*runtime.Env, time.Duration, error) {
	opts := runtime.Options{Engine: engine}
	if bundlePath != "" {
		t0 := time.Now()
		env, err := runtime.Load(ctx, bundlePath, opts)
		return env, time.Since(t0), err
	}
	b, err := compiler.Build(ctx, envDir, compiler.Options{})
	if err != nil {
		return nil, 0, fmt.Errorf("build %s: %w", envDir, err)
	}
	t0 := time.Now()
	env, err := runtime.LoadBundle(ctx, b, opts)
	return env, time.Since(t0), err
}

// PyOptions run baseline.py.
type PyOptions struct {
	Python      string // interpreter, default python3
	Script      string // path to baseline.py
	DataDir     string // the three JSON files
	Refs        []string
	Repeat      int
	StateRepeat int
	Limit       int  // 0: all episodes
	VerifyOnly  bool // verification only, no timing
	Stderr      io.Writer
}

// RunPython runs baseline.py and decodes its JSON. A failed verification is
// not an error here: the caller reads Verify.OK.
func RunPython(ctx context.Context, o PyOptions) (*PyResult, error) {
	py := o.Python
	if py == "" {
		py = "python3"
	}
	args := []string{o.Script,
		"--data", o.DataDir,
		"--refs", strings.Join(o.Refs, ","),
		"--repeat", strconv.Itoa(max(o.Repeat, 1)),
		"--state-repeat", strconv.Itoa(max(o.StateRepeat, 1)),
	}
	if o.Limit > 0 {
		args = append(args, "--limit", strconv.Itoa(o.Limit))
	}
	if o.VerifyOnly {
		args = append(args, "--verify-only")
	}
	cmd := exec.CommandContext(ctx, py, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = o.Stderr
	err := cmd.Run()
	if stdout.Len() == 0 && err != nil {
		return nil, fmt.Errorf("%s %s: %w", py, o.Script, err)
	}
	return ParsePyResult(stdout.Bytes())
}
