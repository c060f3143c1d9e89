package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/sdk"
)

// generatorVersion changes whenever generated code or build flags change,
// so that cached modules from an older compiler are not reused.
const generatorVersion = "wasmenv-gen-4"

var buildFlags = []string{"build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w -checklinkname=0"}

// namedBuildFlags keep the module's function names (Options.KeepNames).
var namedBuildFlags = []string{"build", "-buildmode=c-shared", "-trimpath", "-ldflags=-w -checklinkname=0"}

func (o *Options) goBuildFlags() []string {
	if o.KeepNames {
		return namedBuildFlags
	}
	return buildFlags
}

// toolchain finds the go command and its version.
type toolchain struct {
	gobin   string
	version string
}

var (
	toolchainOnce sync.Once
	toolchainVal  toolchain
	toolchainErr  error
)

func findToolchain() (toolchain, error) {
	toolchainOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
				gobin, err = p, nil
			}
		}
		if err != nil {
			toolchainErr = errors.New("building a bundle needs the Go toolchain (go 1.24 or newer) on PATH; running bundles does not")
			return
		}
		out, err := exec.Command(gobin, "env", "GOVERSION").Output()
		if err != nil {
			toolchainErr = fmt.Errorf("go env GOVERSION: %v", err)
			return
		}
		toolchainVal = toolchain{gobin: gobin, version: strings.TrimSpace(string(out))}
	})
	return toolchainVal, toolchainErr
}

// sdkFiles returns the sdk sources the guest needs (no tests, no embed file).
func sdkFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(sdk.Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(path, "_test.go") || path == "embed.go" {
			return nil
		}
		b, err := fs.ReadFile(sdk.Source, path)
		files[path] = b
		return err
	})
	return files, err
}

// buildModule compiles the tools with the generated main into a wasip1
// reactor module, reusing the cache when every input is unchanged.
func buildModule(ctx context.Context, opts Options, src *source, mainGo []byte) ([]byte, string, error) {
	tc, err := findToolchain()
	if err != nil {
		return nil, "", err
	}
	sdkSrc, err := sdkFiles()
	if err != nil {
		return nil, "", err
	}
	files := map[string][]byte{
		"go.mod":  []byte("module github.com/wasmenv/wasmenv\n\ngo 1.24\n"),
		"main.go": mainGo,
	}
	for name, b := range sdkSrc {
		files["sdk/"+name] = b
	}
	for name, b := range src.tools {
		files["tools/"+name] = b
	}
	key := cacheKey(tc.version, opts.goBuildFlags(), files)
	cacheDir := opts.CacheDir
	cached := filepath.Join(cacheDir, "modules", key+".wasm")
	if !opts.NoCache {
		if b, err := os.ReadFile(cached); err == nil {
			return b, tc.version, nil
		}
	}

	work, err := os.MkdirTemp(cacheDir, "build-")
	if err != nil {
		return nil, "", err
	}
	if opts.KeepWork {
		opts.logf("build directory: %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	for name, b := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, "", err
		}
	}
	patchDir := filepath.Join(work, "_overlay") // "_": not a package of the build
	if err := os.Mkdir(patchDir, 0o755); err != nil {
		return nil, "", err
	}
	overlay, err := writeOverlay(tc.gobin, patchDir)
	if err != nil {
		return nil, "", err
	}
	out := filepath.Join(work, "tools.wasm")
	cmd := exec.CommandContext(ctx, tc.gobin, append(opts.goBuildFlags(), "-overlay="+overlay, "-o", out, ".")...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0",
		"GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GO111MODULE=on",
		// Settings that change the output but are not in the cache key are
		// pinned, so a cached module always matches a fresh build.
		"GOWASM=", "GOEXPERIMENT=", "GOFLAGS=-mod=mod", "GOAMD64=")
	limitedCommand(cmd, opts.maxBuildMemory())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if limit := opts.maxBuildMemory(); buildMemoryCapped && limit >= 0 && outOfMemory(stderr.String(), err) {
			return nil, "", errAt(filepath.Join(src.dir, "tools"), "go build ran out of memory under the limit of %s (Options.MaxBuildMemory): the tool code is too large to compile", humanBytes(limit))
		}
		return nil, "", goBuildError(stderr.String(), filepath.Join(src.dir, "tools"), err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	if !opts.NoCache {
		if err := os.MkdirAll(filepath.Dir(cached), 0o755); err == nil {
			_ = atomicfile.WriteFile(cached, b) // a cache write failure only costs a rebuild
		}
	}
	return b, tc.version, nil
}

func cacheKey(goVersion string, flags []string, files map[string][]byte) string {
	h := xxhash.New()
	h.WriteString(generatorVersion + "\x00" + goVersion + "\x00" + strings.Join(flags, " ") + "\x00" + guestPatchKey())
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

var toolsPathRE = regexp.MustCompile(`(?m)(^|\s)(\./)?tools/`)

// goBuildError rewrites build-directory paths in compiler output to the
// author's tools directory, so errors point at their files.
func goBuildError(out, toolsDir string, err error) error {
	out = toolsPathRE.ReplaceAllString(out, "${1}"+toolsDir+string(filepath.Separator))
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "# ") {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return fmt.Errorf("go build: %v", err)
	}
	return fmt.Errorf("go build failed:\n%s", strings.Join(lines, "\n"))
}
