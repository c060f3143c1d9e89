package rl_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
)

// Every JSON field of what the engine writes (a rollout line, a toolset
// record, the summary) is documented in docs/ROLLOUT.md, in backquotes.
func TestEveryFieldDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/ROLLOUT.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{rl.Rollout{}, rl.Toolset{}, rl.Summary{}, rl.EnvSummary{}, rl.TaskSummary{}, rl.TurnTokens{}, rl.Usage{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), "\""+name+"\"") {
				t.Errorf("%s.%s (%q) is not in docs/ROLLOUT.md", typ.Name(), typ.Field(i).Name, name)
			}
		}
	}
}
