package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
// directory holding a copy of the checkout, with this build as wasmenv;
// nothing is written into the checkout (issue 38).
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

// runDocScript runs script with bash in a scratch directory holding a
// copy of the checkout, and kills whatever it left running.
func runDocScript(t *testing.T, root, script string) {
	work, binDir := t.TempDir(), t.TempDir()
	if err := copyCheckout(root, work); err != nil {
		t.Fatal(err)
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

// copyCheckout copies the checkout's source files into dir: git's tracked
// and untracked-but-not-ignored files, or every file but .git where git
// cannot list them. A copy, not links: the docs' commands write where they
// run (go build -o wasmenv, -o store.wasm), and through a link they would
// replace the reader's own ./wasmenv, or fail on it while `./wasmenv serve`
// runs ("Text file busy").
func copyCheckout(root, dir string) error {
	files, err := checkoutFiles(root)
	if err != nil {
		return err
	}
	for _, rel := range files {
		src, dst := filepath.Join(root, rel), filepath.Join(dir, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked, deleted in the work tree
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(target, dst)
			}
			if err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(src)
			if err == nil {
				err = os.WriteFile(dst, b, fi.Mode().Perm())
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkoutFiles lists the checkout's files, relative to root.
func checkoutFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, filepath.FromSlash(f))
			}
		}
		return files, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// The docs' commands run where a reader followed the README: its
// ./wasmenv built and serving (so the file is busy), its own outputs
// beside it. The test's run of the README's `go build -o wasmenv` and of
// commands writing there must leave them as they were.
func TestDocsScriptLeavesTheCheckoutAlone(t *testing.T) {
	root := t.TempDir()
	sleep, err := os.ReadFile("/usr/bin/sleep")
	if err != nil {
		t.Skipf("a stand-in for a running ./wasmenv: %v", err)
	}
	files := map[string]string{"wasmenv": string(sleep), "store.wasm": "the reader's bundle", "envs/store/env.yaml": "name: store\n"}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	serving := exec.Command(filepath.Join(root, "wasmenv"), "600") // `./wasmenv serve` running
	if err := serving.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serving.Process.Kill(); serving.Wait() })
	runDocScript(t, root, docsPreamble+`go build -o wasmenv ./cmd/wasmenv
./wasmenv --help > /dev/null
echo built > store.wasm
cat envs/store/env.yaml > /dev/null
`)
	for name, body := range files {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(b) != body {
			t.Errorf("%s changed in the checkout (%v)", name, err)
		}
	}
}
