package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The docs whose shell blocks TestDocsShellBlocks runs.
var shellDocs = []string{"README.md", "docs/ROLLOUT.md", "docs/SERVING.md", "docs/SYNTHESIS.md", "docs/TRAINING.md"}

var (
	shellFenceRE = regexp.MustCompile("(?ms)^```(?:sh|bash|shell|console)\n(.*?)^```\n")
	docsSkipRE   = regexp.MustCompile(`<!-- docs-test: skip(?:: ([^\n]*?))? -->\n$`)
)

// docsPreamble runs before a doc's blocks. The docs build wasmenv from the
// checkout (go build -o X ./cmd/wasmenv, go run ./cmd/wasmenv): the test's
// binary is that build, so those two commands use it instead of linking
// it again; every other command runs as written.
const docsPreamble = `set -euo pipefail
go() {
  if [ "${1-}" = build ] && [ "${2-}" = -o ] && [ "${4-}" = ./cmd/wasmenv ] && [ $# -eq 4 ]; then cp "$WASMENV_BIN" "$3"; return; fi
  if [ "${1-}" = run ] && [ "${2-}" = ./cmd/wasmenv ]; then shift 2; "$WASMENV_BIN" "$@"; return; fi
  command go "$@"
}
`

// Issue 26: every shell block of the user docs runs, in order, one bash
// per document (as a reader pastes them into one terminal), in a scratch
// directory that sees the checkout's files, with this build as wasmenv.
// A block that cannot run offline on a fresh build (a GPU server, an LLM
// endpoint, the reader's own files) is preceded by
// <!-- docs-test: skip: REASON -->, and the reason is required. The docs'
// fixed port 127.0.0.1:8080 becomes a free one.
func TestDocsShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the docs' commands build and run environments (~1 min)")
	}
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the docs' commands need %s: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, doc := range shellDocs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		var script strings.Builder
		script.WriteString(docsPreamble)
		blocks := 0
		for _, m := range shellFenceRE.FindAllSubmatchIndex(text, -1) {
			line := 1 + strings.Count(string(text[:m[0]]), "\n")
			if skip := docsSkipRE.FindSubmatch(text[max(0, m[0]-200):m[0]]); skip != nil {
				if len(skip[1]) == 0 {
					t.Errorf("%s:%d: a docs-test skip marker without a reason", doc, line)
				}
				continue
			}
			fmt.Fprintf(&script, "echo '### %s:%d' >&2\n%s", doc, line, text[m[2]:m[3]])
			blocks++
		}
		if blocks == 0 {
			continue
		}
		ran += blocks
		t.Run(filepath.Base(doc), func(t *testing.T) {
			runDocScript(t, root, strings.ReplaceAll(script.String(), "127.0.0.1:8080", freeAddr(t)))
		})
	}
	if ran < 6 {
		t.Errorf("ran %d blocks: the docs lost their runnable commands", ran)
	}
}

// runDocScript runs script with bash in a scratch directory holding links
// to the checkout's top-level entries, and kills whatever it left running.
func runDocScript(t *testing.T, root, script string) {
	work, binDir := t.TempDir(), t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "wasmenv")); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "WASMENV_BIN="+bin)
	cmd.Stdout, cmd.Stderr = out, out // a file: a server left in the background cannot hold Wait
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // background jobs the script left
	}
	if err != nil {
		b, _ := os.ReadFile(out.Name())
		s := string(b)
		block := "?"
		if i := strings.LastIndex(s, "### "); i >= 0 {
			block, _, _ = strings.Cut(s[i+4:], "\n")
		}
		t.Errorf("the block at %s failed: %v\n…%s", block, err, s[max(0, len(s)-3000):])
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
