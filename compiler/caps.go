package compiler

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// The bounds of a build, for tool code that may come from a model
// (synth llm) or a database (synth from-db) as well as from an author.
const (
	// DefaultMaxSourceBytes caps the tools' Go source, all files together
	// (Options.MaxSourceBytes). go build takes ~100-210 MB of memory per
	// MB of composite literal; the largest hand-written environment here
	// has 80 KiB of tools. Data belongs in seed.sql or imports.
	DefaultMaxSourceBytes = 1 << 20
	// DefaultMaxBuildMemory caps the data memory of go build and of each
	// compiler process it starts (Options.MaxBuildMemory), on Linux.
	DefaultMaxBuildMemory = 1 << 30
)

func (o *Options) maxSourceBytes() int64 {
	if o.MaxSourceBytes == 0 {
		return DefaultMaxSourceBytes
	}
	return o.MaxSourceBytes
}

func (o *Options) maxBuildMemory() int64 {
	if o.MaxBuildMemory == 0 {
		return DefaultMaxBuildMemory
	}
	return o.MaxBuildMemory
}

// checkSourceSize refuses tool source over the cap, before it is parsed.
func checkSourceSize(dir string, tools map[string][]byte, limit int64) error {
	if limit < 0 {
		return nil
	}
	var total int64
	for _, b := range tools {
		total += int64(len(b))
	}
	if total <= limit {
		return nil
	}
	return errAt(filepath.Join(dir, "tools"), "%s of Go source, over the limit of %s: keep tool code small and put data in seed.sql or imports (Options.MaxSourceBytes)",
		humanBytes(total), humanBytes(limit))
}

// limitedCommand runs name with args under a data limit (RLIMIT_DATA) of
// limit bytes when the OS has one (limit < 0: none). The limit is set by a
// shell that then execs the command, so it holds from the first
// instruction and every process go build starts inherits it; setting it on
// the child after Start would race with the compiler processes it forks.
// RLIMIT_DATA, unlike RLIMIT_AS, does not count the address space the Go
// runtime reserves without using, so it bounds what the build really
// takes. GOMEMLIMIT at 80% of it makes the compiler's collector work
// harder before the hard limit is reached.
func limitedCommand(cmd *exec.Cmd, limit int64) {
	if !buildMemoryCapped || limit < 0 {
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return
	}
	kb := max(limit>>10, 1)
	// ";" not "&&": a hard limit already lower than ours makes ulimit fail,
	// and the build then runs under that lower one.
	cmd.Args = append([]string{"sh", "-c", fmt.Sprintf(`ulimit -d %d 2>/dev/null; exec "$0" "$@"`, kb), cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sh
	cmd.Env = append(cmd.Env, fmt.Sprintf("GOMEMLIMIT=%d", limit/10*8))
}

// outOfMemory reports whether go build failed for memory: its output says
// a process ran out of it, or the go command died of a signal (a Go
// runtime under a data limit too small to start it faults silently).
func outOfMemory(out string, err error) bool {
	if strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") {
		return true
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true
		}
	}
	return false
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
