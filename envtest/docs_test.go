package envtest_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/runtime"
)

var (
	fenceRE  = regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```\\n")
	markerRE = regexp.MustCompile(`<!-- file: ([\w./-]+) -->\n$`)
)

// TestDocsExample builds the environment made of docs/ENV_FORMAT.md's
// snippets, each marked with its file name, and requires every task to
// pass wasmenv test; every snippet with a language must be such a file.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/ENV_FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := 0
	for _, m := range fenceRE.FindAllSubmatchIndex(doc, -1) {
		lang, body := string(doc[m[2]:m[3]]), doc[m[4]:m[5]]
		marker := markerRE.FindSubmatch(doc[max(0, m[0]-80):m[0]])
		if marker == nil {
			if lang != "" {
				line := 1 + strings.Count(string(doc[:m[0]]), "\n")
				t.Errorf("ENV_FORMAT.md:%d: a %s snippet without <!-- file: NAME --> is not tested", line, lang)
			}
			continue
		}
		p := filepath.Join(dir, string(marker[1]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if files < 6 {
		t.Fatalf("found %d file snippets", files)
	}
	ctx := context.Background()
	b, err := compiler.Build(ctx, dir, compiler.Options{})
	if err != nil {
		t.Fatalf("the docs' example does not build: %v", err)
	}
	if len(b.Manifest.Tools) != 2 || len(b.Tasks) != 1 || b.Tasks[0].Instruction != "Cancel order #W1001, I ordered it by mistake." {
		t.Errorf("tools %d, tasks %+v", len(b.Manifest.Tools), b.Tasks)
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r, err := envtest.Run(ctx, env, envtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
	if tr := r.Tasks[0]; tr.GroundTruth != 1 || tr.Empty >= 1 || !tr.ChangesState {
		t.Errorf("task: %+v", tr)
	}
}
