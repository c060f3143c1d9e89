package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's Go snippet compiles against the current API: it is wrapped
// in a main function and compiled with go build, through an overlay so
// that nothing is written into the source tree.
func TestReadmeGoSnippetCompiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```go\n(.*?)^```\n").FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("no Go snippet in the README")
	}
	for i, b := range blocks {
		snippet := string(b[1])
		var uses []string
		for _, m := range regexp.MustCompile(`(?m)^(\w+)(?:, (\w+))? :=`).FindAllStringSubmatch(snippet, -1) {
			for _, name := range m[1:] {
				if name != "" && name != "_" {
					uses = append(uses, "\t_ = "+name)
				}
			}
		}
		src := "package main\n\nimport (\n\t\"context\"\n\n\t\"github.com/wasmenv/wasmenv/runtime\"\n)\n\nfunc main() {\n\tctx := context.Background()\n" +
			snippet + strings.Join(uses, "\n") + "\n}\n"
		dir := t.TempDir()
		file := filepath.Join(dir, "main.go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		root, _ := filepath.Abs("../..")
		virtual := filepath.Join(root, "internal", "readmesnippet", "main.go")
		overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{virtual: file}})
		ov := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-overlay", ov, "-o", filepath.Join(dir, "snippet"), "./internal/readmesnippet")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README Go snippet %d does not compile: %v\n%s\n%s", i+1, err, out, src)
		}
	}
}
