package compiler

import (
	"context"
	"strings"
	"testing"
)

// Issue 13 item 10: a task setup with CREATE INDEX or CURRENT_TIMESTAMP
// built, then every episode of the task failed "not authorized". The
// compiler now applies the runtime's rules (internal/sqlrules) to task
// setups, checks and export views.
func TestBuildAppliesTheRuntimeSQLRules(t *testing.T) {
	for name, c := range map[string]struct{ tasks, env, want string }{
		"index in setup":  {tasks: "- id: x\n  instruction: i\n  setup: CREATE INDEX kv_v ON kv (v)\n  checks: [{sql: SELECT 1}]\n", want: "not authorized"},
		"clock in setup":  {tasks: "- id: x\n  instruction: i\n  setup: UPDATE kv SET v = CURRENT_TIMESTAMP\n  checks: [{sql: SELECT 1}]\n", want: "not authorized"},
		"pragma in setup": {tasks: "- id: x\n  instruction: i\n  setup: PRAGMA user_version = 3\n  checks: [{sql: SELECT 1}]\n", want: "PRAGMA is not allowed"},
		"clock in check":  {tasks: "- id: x\n  instruction: i\n  checks: [{sql: SELECT CURRENT_DATE > '2000'}]\n", want: "not authorized"},
		"clock in export": {env: "name: t\nexport:\n  kv:\n    query: SELECT k, json_object('at', CURRENT_TIME) FROM {schema}.kv\n    tables: [kv]\n", want: "not authorized"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			if c.tasks != "" {
				files["tasks.yaml"] = c.tasks
			}
			if c.env != "" {
				files["env.yaml"] = c.env
			}
			_, err := Build(context.Background(), writeEnv(t, okTool, files), Options{SkipStaticChecks: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
		})
	}
	// Row writes in a setup, reads in a check: still fine.
	if _, err := Build(context.Background(), writeEnv(t, okTool, map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  setup: UPDATE kv SET v = 'y'\n  checks: [{sql: SELECT v = 'y' FROM main.kv}]\n"}), Options{SkipStaticChecks: true}); err != nil {
		t.Fatal(err)
	}
}
