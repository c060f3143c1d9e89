package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPromptsAreEditableFiles(t *testing.T) {
	dir := t.TempDir()
	if err := WritePrompts(dir); err != nil {
		t.Fatal(err)
	}
	for _, st := range promptedStages {
		for _, f := range []string{st + ".tmpl", st + ".schema.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
	}
	// An edited prompt is used, and changes the stage's cache key.
	def, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	edited := "You write tasks for {{.Scenario.Title}}.\n=== user ===\nWrite {{.K}} tasks, in French.\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks.tmpl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.messages(StageTasks, map[string]any{"Scenario": Scenario{Title: "Library"}, "K": 3})
	if err != nil || msgs[0].Content != "You write tasks for Library." || msgs[1].Content != "Write 3 tasks, in French." {
		t.Errorf("messages %+v, %v", msgs, err)
	}
	if p.text[StageTasks] == def.text[StageTasks] {
		t.Error("an edited prompt must change the stage's cache key")
	}
	// A broken one is a clear error naming the file.
	os.WriteFile(filepath.Join(dir, "schema.tmpl"), []byte("no user part"), 0o644)
	if _, err := LoadPrompts(dir); err == nil || !strings.Contains(err.Error(), "schema.tmpl") {
		t.Errorf("err = %v, want one naming schema.tmpl", err)
	}
}

func TestEveryDefaultPromptRenders(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	r := &envRun{sc: Scenario{Name: "x", Title: "X", Description: "d"}, p: &pipeline{cfg: Config{}}}
	r.p.cfg.defaults()
	for _, auth := range []bool{true, false} {
		r.p.cfg.AuthAssumed = auth
		data := with(r.base(), "Seeds", []string{"a"}, "N", 2, "Existing", []string{"b"}, "Test", toolTest{Tool: "t"}, "Observed", "ok", "Code", "",
			"Round", 1, "ToolSchemas", []any{}, "Results", []probeResult{})
		for _, st := range promptedStages {
			msgs, err := p.messages(st, data)
			if err != nil {
				t.Errorf("%s (auth assumed %v): %v", st, auth, err)
				continue
			}
			if st == StageTasks && strings.Contains(msgs[1].Content, "already signed in") != auth {
				t.Errorf("tasks prompt ignores the authentication switch (assumed %v)", auth)
			}
		}
	}
}
