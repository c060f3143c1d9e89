package compiler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// Options configure a build.
type Options struct {
	// CacheDir holds built modules and temporary build directories.
	// Default: $WASMENV_CACHE, else the user cache dir + /wasmenv.
	CacheDir string
	// NoCache rebuilds even when a cached module matches.
	NoCache bool
	// KeepWork keeps the build directory and logs its path.
	KeepWork bool
	// Log receives progress lines; nil discards them.
	Log func(string)
	// SkipStaticChecks lets tool code through without the static rules.
	// It exists so tests can prove the runtime sandbox holds on its own
	// (defense in depth); never use it for real environments. The runtime
	// alone does not contain everything the rules refuse: a goroutine
	// (refused by the rules) can outlive the call that started it, on a
	// pooled module instance, and its SQL then runs inside whatever call
	// the instance serves next, a call of another episode, whose diff and
	// state it writes (issue 25, finding 14). Without the static checks,
	// episodes are not isolated from each other's tool code.
	SkipStaticChecks bool
	// KeepNames keeps the module's function names (its wasm name section),
	// so that a profile or a function listener can name the guest's
	// functions; the bundle is larger.
	KeepNames bool
	// MaxSourceBytes caps the tools' Go source, all files together (0:
	// DefaultMaxSourceBytes, 1 MiB; negative: no cap).
	MaxSourceBytes int64
	// MaxBuildMemory caps the data memory of go build and of each process
	// it starts, on Linux (0: DefaultMaxBuildMemory, 1 GiB; negative: no
	// cap). Builds running at once are each bounded.
	MaxBuildMemory int64
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

// DefaultCacheDir is where built modules are cached.
func DefaultCacheDir() string {
	if d := os.Getenv("WASMENV_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "wasmenv")
	}
	return filepath.Join(os.TempDir(), "wasmenv-cache")
}

// Build compiles the environment in dir into a bundle (not yet written).
func Build(ctx context.Context, dir string, opts Options) (*envpkg.Bundle, error) {
	b, _, err := build(ctx, dir, opts)
	return b, err
}

// BuildFile builds dir and writes the bundle to out atomically.
func BuildFile(ctx context.Context, dir, out string, opts Options) (*envpkg.Bundle, error) {
	b, data, err := build(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(out, data); err != nil {
		return nil, err
	}
	return b, nil
}

// build returns the bundle and its encoding.
func build(ctx context.Context, dir string, opts Options) (*envpkg.Bundle, []byte, error) {
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return nil, nil, err
	}
	src, err := loadSource(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(src.pyTools) > 0 {
		return buildPython(ctx, dir, opts, src)
	}
	if err := checkSourceSize(dir, src.tools, opts.maxSourceBytes()); err != nil {
		return nil, nil, err
	}
	toolsDir := filepath.Join(dir, "tools")
	var parsed *parsedTools
	if opts.SkipStaticChecks {
		parsed, err = parseToolsUnchecked(toolsDir, src.tools)
	} else {
		parsed, err = parseTools(toolsDir, src.tools)
	}
	if err != nil {
		return nil, nil, err
	}
	tools, err := findTools(parsed)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		src.manifest.Tools = append(src.manifest.Tools, envpkg.Tool{Name: t.name, Description: t.desc, InputSchema: t.schema()})
		names[i] = t.name
	}
	if err := validateTasks(src, names); err != nil {
		return nil, nil, err
	}
	db, err := buildDB(src)
	if err != nil {
		return nil, nil, err
	}
	mainGo, err := generateMain(tools)
	if err != nil {
		return nil, nil, err
	}
	module, goVersion, err := buildModule(ctx, opts, src, mainGo)
	if err != nil {
		return nil, nil, err
	}
	src.manifest.Toolchain = goVersion
	src.manifest.GuestPatches = GuestPatchLevel
	b := &envpkg.Bundle{Manifest: src.manifest, Module: module, DB: db, Tasks: src.tasks}
	data, err := envpkg.Encode(b) // validates and fills the hash
	if err != nil {
		return nil, nil, err
	}
	return b, data, nil
}
