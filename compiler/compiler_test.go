package compiler

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/internal/testcache"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// writeEnv writes a minimal environment with the given tool source and
// optional overrides of other files.
func writeEnv(t *testing.T, tool string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{
		"env.yaml":      "name: t\nversion: 1.0.0\ndescription: test\n",
		"schema.sql":    "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);\n",
		"seed.sql":      "INSERT INTO kv VALUES ('a', 'x');\n",
		"tools/tool.go": tool,
	}
	for k, v := range files {
		base[k] = v
	}
	for name, body := range base {
		if body == "" {
			continue
		}
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const okTool = `package tools

import "github.com/wasmenv/wasmenv/sdk"

// GetArgs selects a key.
type GetArgs struct {
	// The key.
	Key string ` + "`json:\"key\"`" + `
}

// Get returns a value.
func Get(args GetArgs) (sdk.Row, error) { return sdk.QueryRow("SELECT v FROM kv WHERE k = ?", args.Key) }
`

func TestStaticChecksNameFileAndLine(t *testing.T) {
	dir := filepath.Join("..", "testdata", "envs", "sandbox")
	_, err := Build(context.Background(), dir, Options{})
	if err == nil {
		t.Fatal("sandbox env compiled with static checks on")
	}
	msg := err.Error()
	for _, want := range []string{
		`escape.go:4: import "net" is not allowed`,
		`escape.go:5: import "os" is not allowed`,
		`escape.go:10: package-level var counter`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
}

func TestStaticChecks(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"goroutine": {`package tools
// F does things.
func F() (string, error) { go func() {}(); return "", nil }
`, "tool.go:3: go statements are not allowed"},
		"directive": {`package tools
//go:linkname x runtime.x
// F does things.
func F() (string, error) { return "", nil }
`, "tool.go:2: compiler directive"},
		"unsafe": {`package tools
import "unsafe"
// F does things.
func F() (int, error) { return int(unsafe.Sizeof(1)), nil }
`, `tool.go:2: import "unsafe" is not allowed`},
		"package name":   {"package main\n// F x.\nfunc F() (string, error) { return \"\", nil }\n", "package must be named tools"},
		"no doc":         {"package tools\nfunc F() (string, error) { return \"\", nil }\n", "tool.go:2: tool F: needs a doc comment"},
		"bad signature":  {"package tools\n// F x.\nfunc F(a, b int) (string, error) { return \"\", nil }\n", "tool F: takes 2 parameters"},
		"no error":       {"package tools\n// F x.\nfunc F() string { return \"\" }\n", "must return exactly (R, error)"},
		"non-struct arg": {"package tools\n// F x.\nfunc F(s string) (string, error) { return s, nil }\n", "parameter must be a struct type"},
		"chan result":    {"package tools\n// F x.\nfunc F() (chan int, error) { return nil, nil }\n", "type chan is not supported"},
		"syntax":         {"package tools\nfunc (", "tool.go:"},
		"no tools":       {"package tools\nfunc helper() {}\n", "no tools"},
		"type error":     {"package tools\n// F x.\nfunc F() (string, error) { return undefinedThing, nil }\n", "tool.go:3:"},
		// Standard-library state that outlives a call (issue 8's leaks).
		"clear categories": {"package tools\nimport \"unicode\"\n// F x.\nfunc F() (string, error) {\n\tclear(unicode.Categories)\n\treturn \"\", nil\n}\n",
			"tool.go:5: tool code may only read unicode.Categories in place"},
		"maps.Copy categories": {"package tools\nimport (\n\t\"maps\"\n\t\"unicode\"\n)\n// F x.\nfunc F() (string, error) {\n\tmaps.Copy(unicode.Categories, map[string]*unicode.RangeTable{})\n\treturn \"\", nil\n}\n",
			"tool.go:8: tool code may only read unicode.Categories"},
		"alias time.Local": {"package tools\nimport \"time\"\n// F x.\nfunc F() (string, error) {\n\tl := time.Local\n\t*l = *time.FixedZone(\"secret\", 0)\n\treturn \"\", nil\n}\n",
			"tool.go:5: tool code may only read time.Local"},
		"alias base64": {"package tools\nimport \"encoding/base64\"\n// F x.\nfunc F() (string, error) {\n\te := base64.StdEncoding\n\t*e = *e.WithPadding('!')\n\treturn \"\", nil\n}\n",
			"tool.go:5: tool code may only read encoding/base64.StdEncoding"},
		"pass to own func": {"package tools\nimport \"time\"\n// F x.\nfunc F() (string, error) {\n\tset(time.Local)\n\treturn \"\", nil\n}\nfunc set(l *time.Location) { *l = *time.UTC }\n",
			"tool.go:5: tool code may only read time.Local"},
		"generated-code hooks": {"package tools\nimport \"github.com/wasmenv/wasmenv/sdk/gen\"\n// F x.\nfunc F() (string, error) { gen.SetDispatch(nil); return \"\", nil }\n",
			`tool.go:2: import "github.com/wasmenv/wasmenv/sdk/gen" is not allowed`},
		"pointer verb": {"package tools\nimport \"fmt\"\n// F x.\nfunc F() (string, error) { return fmt.Sprintf(\"%-8p\", new(int)), nil }\n",
			"tool.go:4: %p is not allowed in tool code"},
		"time.Now": {"package tools\nimport \"time\"\n// F x.\nfunc F() (string, error) { return time.Now().String(), nil }\n",
			"tool.go:4: time.Now is not allowed in tool code: its monotonic reading"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, c.src, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got: %v", c.want, err)
			}
		})
	}
}

// Reading the standard library's variables in place stays allowed.
func TestStdVarsReadInPlace(t *testing.T) {
	src := `package tools

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
)

// F reads standard variables the ways tool code does.
func F() (string, error) {
	_, err := strconv.Atoi("x")
	if errors.Is(err, strconv.ErrSyntax) || err == strconv.ErrRange {
		err = nil
	}
	switch err {
	case strconv.ErrRange:
	}
	up := unicode.Is(unicode.Upper, 'A') && len(unicode.Categories) > 0
	t := sdk.Now().In(time.UTC)
	return base64.StdEncoding.EncodeToString([]byte(t.Location().String())) + strconv.FormatBool(up) +
		regexp.MustCompile(` + "`\\p{Lu}`" + `).FindString("aB") + time.UTC.String() + fmt.Sprintf("%d%%p", 1), err
}
`
	if _, err := Build(context.Background(), writeEnv(t, src, nil), Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestSourceErrorsNameThePlace(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"schema syntax":   {map[string]string{"schema.sql": "CREATE TABLE a (x INTEGER PRIMARY KEY);\n\nCREATE TABLE oops (;\n"}, "schema.sql:3:"},
		"no primary key":  {map[string]string{"schema.sql": "CREATE TABLE kv (k TEXT, v TEXT);\n"}, "table kv has no PRIMARY KEY"},
		"seed constraint": {map[string]string{"seed.sql": "INSERT INTO kv VALUES ('a', 'x');\nINSERT INTO kv VALUES ('a', 'y');\n"}, "seed.sql:2:"},
		"env unknown key": {map[string]string{"env.yaml": "name: t\nflavour: x\n"}, "env.yaml"},
		"bad name":        {map[string]string{"env.yaml": "name: Bad Name\n"}, "environment name"},
		"bad clock":       {map[string]string{"env.yaml": "name: t\nclock: yesterday\n"}, "clock"},
		"bad timeout":     {map[string]string{"env.yaml": "name: t\nlimits: {call_timeout: forever}\n"}, "call_timeout"},
		"import missing column": {map[string]string{
			"env.yaml":     "name: t\nimports: [{file: data/kv.json, table: kv}]\n",
			"data/kv.json": `[{"k": "b", "v": "y", "extra": 1}]`,
		}, `field "extra" has no column`},
		"import bad json": {map[string]string{
			"env.yaml":     "name: t\nimports: [{file: data/kv.json, table: kv}]\n",
			"data/kv.json": `[{"k": "b",`,
		}, "kv.json"},
		"task bad check":        {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  checks: [{sql: SELEC 1}]\n"}, "task x: check 1"},
		"task unknown tool":     {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  calls: [{name: nope}]\n  checks: [{sql: SELECT 1}]\n"}, `unknown tool "nope"`},
		"task bad setup":        {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  setup: UPDATE nope SET a = 1\n  checks: [{sql: SELECT 1}]\n"}, "task x: setup"},
		"task nothing to score": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n"}, "nothing to score"},
		"tasks jsonl":           {map[string]string{"tasks.jsonl": "{\"id\": \"x\", \"bogus\": 1}\n"}, "tasks.jsonl:1"},
		"export columns":        {map[string]string{"env.yaml": "name: t\nexport: {kv: {query: 'SELECT k FROM {schema}.kv'}}\n"}, "must return 2 columns"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, okTool, c.files), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got: %v", c.want, err)
			}
		})
	}
}

func TestImportsAndSchemas(t *testing.T) {
	dir := writeEnv(t, okTool, map[string]string{
		"env.yaml": "name: t\nimports:\n  - {file: data/users.json, table: users, key_column: id, json_column: data}\n  - {file: data/kv.jsonl, table: kv}\n",
		"schema.sql": "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);\n" +
			"CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, data TEXT NOT NULL);\n",
		"data/users.json": `{"u2": {"name": "Bo", "tags": [1]}, "u1": {"name": "Al"}}`,
		"data/kv.jsonl":   "{\"k\": \"b\", \"v\": \"y\"}\n{\"k\": \"c\", \"v\": null}\n",
	})
	b, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Manifest.Tools) != 1 || b.Manifest.Tools[0].Name != "get" || b.Manifest.Tools[0].Description != "Returns a value." {
		t.Fatalf("tools: %+v", b.Manifest.Tools)
	}
	var schema map[string]any
	json.Unmarshal(b.Manifest.Tools[0].InputSchema, &schema)
	if schema["additionalProperties"] != false || schema["required"].([]any)[0] != "key" {
		t.Fatalf("schema: %s", b.Manifest.Tools[0].InputSchema)
	}
	// A second build of the same source hits the module cache and gives the same bundle.
	b2, err := Build(context.Background(), dir, Options{})
	if err != nil || b2.Hash != b.Hash {
		t.Fatalf("rebuild: %v, hash %s vs %s", err, b2.Hash, b.Hash)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"GetOrderDetails": "get_order_details", "FindUserIDByNameZip": "find_user_id_by_name_zip",
		"ListAllProductTypes": "list_all_product_types", "Think": "think", "HTTPGet": "http_get",
		"GetV2Order": "get_v2_order", "OrderID": "order_id",
	} {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestStaticChecksStopStateThatOutlivesACall(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"assign other package var": {`package tools
import "github.com/wasmenv/wasmenv/sdk"
// F x.
func F() (string, error) { sdk.ErrNoRows = nil; return "", nil }
`, "tool.go:4: tool code may not change package github.com/wasmenv/wasmenv/sdk's variables"},
		"map in other package": {`package tools
import "unicode"
// F x.
func F() (string, error) { unicode.Categories["x"] = nil; return "", nil }
`, `tool.go:4: tool code may not change package unicode's variables`},
		"field increment": {`package tools
import "unicode"
// F x.
func F() (string, error) { unicode.Categories["L"].LatinOffset++; return "", nil }
`, `tool.go:4: tool code may not change package unicode's variables`},
		"address of": {`package tools
import "time"
// F x.
func F() (string, error) { p := &time.Local; _ = p; return "", nil }
`, `tool.go:4: tool code may not change package time's variables`},
		"after func": {`package tools
import "time"
// F x.
func F() (string, error) { time.AfterFunc(0, func() {}); return "", nil }
`, "tool.go:4: time.AfterFunc is not allowed"},
		"sleep": {`package tools
import "time"
// F x.
func F() (string, error) { time.Sleep(1); return "", nil }
`, "tool.go:4: time.Sleep is not allowed"},
		"init": {`package tools
func init() {}
// F x.
func F() (string, error) { return "", nil }
`, "tool.go:2: init functions are not allowed"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, c.src, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got: %v", c.want, err)
			}
		})
	}
	// Reading package variables and local state are fine.
	ok := `package tools
import (
	"errors"
	"time"
	"github.com/wasmenv/wasmenv/sdk"
)
// F x.
func F() (string, error) {
	m := map[string]int{}
	m["a"]++
	var err error = sdk.ErrNoRows
	if errors.Is(err, sdk.ErrNoRows) { m["b"] = 1 }
	return time.UTC.String(), nil
}
`
	if _, err := Build(context.Background(), writeEnv(t, ok, nil), Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestEnvironmentSQLStaysInside(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"attach in seed":  {map[string]string{"seed.sql": "ATTACH 'file:/etc/hosts?vfs=os' AS h;\n"}, "seed.sql:1: VACUUM and ATTACH are not allowed"},
		"vacuum into":     {map[string]string{"seed.sql": "INSERT INTO kv VALUES ('b','y');\nVACUUM INTO '/tmp/x.db';\n"}, "seed.sql:2: VACUUM and ATTACH"},
		"attach in setup": {map[string]string{"tasks.yaml": "- id: x\n  instruction: i\n  setup: ATTACH '/etc/hosts' AS h\n  checks: [{sql: SELECT 1}]\n"}, "task x: setup:1: VACUUM and ATTACH"},
		"import outside":  {map[string]string{"env.yaml": "name: t\nimports: [{file: ../../etc/passwd, table: kv}]\n"}, "must be a path inside the environment directory"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, okTool, c.files), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got: %v", c.want, err)
			}
		})
	}
}
