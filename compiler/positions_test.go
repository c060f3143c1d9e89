package compiler

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Source mistakes name file:LINE and what is allowed (issue 14, point 2).
func TestSourceErrorsNameTheLine(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  []string
	}{
		"env name": {map[string]string{"env.yaml": "version: 1.0.0\nname: My Library\n"},
			[]string{`env.yaml:2: name "My Library"`, "lowercase letters, digits and '-'", `"my-library"`}},
		"memory limit": {map[string]string{"env.yaml": "name: t\nlimits:\n  memory_mb: 5000\n"},
			[]string{"env.yaml:3: limits.memory_mb: 5000 is out of range (1 to 4096)"}},
		"output limit": {map[string]string{"env.yaml": "name: t\nlimits:\n  call_timeout: 1s\n  max_output_bytes: -1\n"},
			[]string{"env.yaml:4: limits.max_output_bytes: -1 is out of range (1 to 67108864)"}},
		"timeout limit": {map[string]string{"env.yaml": "name: t\nlimits: {call_timeout: -2s}\n"},
			[]string{"env.yaml:2: limits.call_timeout", "positive duration"}},
		"env unknown key": {map[string]string{"env.yaml": "name: t\n\nflavour: x\n"},
			[]string{"env.yaml:3: field flavour not found"}},
		"unknown tool": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  calls:\n    - name: get\n      arguments: {key: a}\n    - name: get_membr\n  checks: [{sql: SELECT 1}]\n"},
			[]string{`tasks.yaml:6: task x: call 2: unknown tool "get_membr" (tools: get)`}},
		"duplicate id": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  checks: [{sql: SELECT 1}]\n- id: x\n  instruction: j\n  checks: [{sql: SELECT 1}]\n"},
			[]string{`tasks.yaml:4: task 2: duplicate id "x" (first at line 1)`}},
		"bad reward": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  checks: [{sql: SELECT 1}]\n  reward: exact\n"},
			[]string{`tasks.yaml:4: task x: reward "exact": want checks or state`}},
		"bad answer": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  answer: {value: a, match: fuzzy}\n"},
			[]string{`tasks.yaml:3: task x: answer match "fuzzy": want one of exact, contains`}},
		"bad credit": {map[string]string{"env.yaml": "name: t\ncredit: most\n"},
			[]string{`env.yaml:2: credit "most": want partial`, "or all"}},
		"alone on json": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  answer: {value: '{}', match: json, alone: {value: x}}\n"},
			[]string{`tasks.yaml:3: task x: answer: alone does not apply to match json`}},
		"alone without value": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  answer: {value: a, match: contains, alone: {others: SELECT 1}}\n"},
			[]string{`tasks.yaml:3: task x: answer: alone needs the value a right answer says`}},
		"bad check": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  checks:\n    - name: c\n      sql: SELEC 1\n"},
			[]string{"tasks.yaml:5: task x: check 1 (c)"}},
		"jsonl unknown tool": {map[string]string{"tasks.jsonl": `{"id": "a", "instruction": "i", "checks": [{"sql": "SELECT 1"}]}` + "\n" +
			`{"id": "b", "instruction": "i", "calls": [{"name": "nope"}], "checks": [{"sql": "SELECT 1"}]}` + "\n"},
			[]string{`tasks.jsonl:2: task b: call 1: unknown tool "nope"`}},
		"yaml tab": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n\tchecks: []\n"},
			[]string{"tasks.yaml:3: "}},
		"yaml unclosed flow": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  calls:\n    - name: get\n      arguments: {key: a\n  checks: []\n"},
			[]string{"tasks.yaml:5: "}},
		"yaml bad indent": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  checks:\n    - sql: SELECT 1\n   name: b\n"},
			[]string{"tasks.yaml:5: "}},
		"sql syntax mid-statement": {map[string]string{"schema.sql": "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);\n\nCREATE TABLE a (\n  x INTEGER PRIMARY KEY,\n  y TEXT NOT NUL\n);\n"},
			[]string{"schema.sql:5: ", `near "NUL"`}},
		"sql failure mid-statement": {map[string]string{"seed.sql": "INSERT INTO kv VALUES\n  ('a', 'x'),\n  ('b', 'y'),\n  ('a', 'z');\n"},
			[]string{"seed.sql:1: ", "statement on lines 1-4", "UNIQUE constraint failed"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, okTool, c.files), Options{})
			if err == nil {
				t.Fatal("built")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want %q in:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "{") && strings.Contains(err.Error(), "MS:") {
				t.Errorf("a raw Go struct in: %v", err)
			}
		})
	}
}

// TestLargeSeedLoadsStatementByStatement: a seed of many statements loads
// (each statement alone was given to SQLite with the whole rest of the
// script: quadratic, and out of SQLite's memory at ~13 MB: issue 25
// finding 8); a trigger whose body holds ';' and literals holding ';' and
// "--" still parse as one statement each.
func TestLargeSeedLoadsStatementByStatement(t *testing.T) {
	var seed strings.Builder
	seed.WriteString("CREATE TABLE log (n INTEGER);\n")
	seed.WriteString("CREATE TRIGGER kv_log AFTER INSERT ON kv BEGIN INSERT INTO log VALUES (1); INSERT INTO log VALUES (2); END;\n")
	pad := strings.Repeat("x", 3000)
	for i := range 6000 {
		fmt.Fprintf(&seed, "INSERT INTO kv VALUES ('k%d', '%s;-- /* [x] %d');\n", i, pad, i)
	}
	dir := writeEnv(t, okTool, map[string]string{"seed.sql": seed.String()})
	b, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.DB) < 18<<20 {
		t.Errorf("database of %d bytes, want all 6000 rows", len(b.DB))
	}
}
