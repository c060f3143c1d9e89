package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
)

func execSQL(t *testing.T, ep *Episode, sql string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return call(t, ep, "exec", string(args))
}

func query(t *testing.T, ep *Episode, sql string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return call(t, ep, "query", string(args))
}

func hash(t *testing.T, ep *Episode) string {
	t.Helper()
	h, err := ep.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Large integers differ in the hash even where float64 would round them
// together; a case-only change in a NOCASE column is a change.
func TestDiffAndHashAreExact(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	execSQL(t, ep, "UPDATE big SET n = n + 1")
	h1 := hash(t, ep)
	ep.Reset()
	execSQL(t, ep, "UPDATE big SET n = n + 2")
	if h2 := hash(t, ep); h1 == h2 {
		t.Fatal("n+1 and n+2 hash the same")
	}
	ep.Reset()
	execSQL(t, ep, "UPDATE nc SET v = 'HELLO'")
	if d, _ := ep.Diff(); len(d["nc"]) != 1 {
		t.Fatalf("case change not in diff: %v", d)
	}
	ep.Reset()
	execSQL(t, ep, "UPDATE big SET n = 1e999")
	if _, err := ep.StateHash(); err != nil {
		t.Fatalf("infinite value: %v", err)
	}
}

// SQL in tool code cannot read the host's clock, and its random() follows
// the episode seed.
func TestSQLIsDeterministic(t *testing.T) {
	e := loadEnv(t, "edge")
	for _, q := range []string{"SELECT CURRENT_TIMESTAMP", "SELECT current_date"} {
		if r := query(t, newEpisode(t, e, "", 1), q); !r.IsError {
			t.Errorf("%s allowed: %s", q, r.Content)
		}
	}
	a := query(t, newEpisode(t, e, "", 5), "SELECT random() AS r, hex(randomblob(8)) AS b").Content
	b := query(t, newEpisode(t, e, "", 5), "SELECT random() AS r, hex(randomblob(8)) AS b").Content
	c := query(t, newEpisode(t, e, "", 6), "SELECT random() AS r, hex(randomblob(8)) AS b").Content
	if a != b || a == c {
		t.Fatalf("random(): seed 5 %s, seed 5 %s, seed 6 %s", a, b, c)
	}
}

// A hostile bundle: task setup SQL may not attach host files, and tool
// schemas may not load files.
func TestHostileBundleSQLAndSchemas(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(secret, []byte(`{"required":["SECRET"]}`), 0o644)
	b := *testBundle(t, "edge", false)
	b.Tasks = []envpkg.Task{{ID: "steal", Instruction: "x", Reward: envpkg.RewardState,
		Setup: "ATTACH 'file:" + secret + "?vfs=os' AS h"}}
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.NewEpisode("steal", 1); err == nil || !strings.Contains(err.Error(), "setup") {
		t.Fatalf("ATTACH in setup: %v", err)
	}
	b.Tasks[0].Setup = "VACUUM INTO 'file:" + secret + ".copy?vfs=os'"
	e2, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := e2.NewEpisode("steal", 1); err == nil {
		t.Fatal("VACUUM INTO in setup accepted")
	}

	b = *testBundle(t, "edge", false)
	tools := append([]envpkg.Tool(nil), b.Manifest.Tools...)
	tools[0].InputSchema = json.RawMessage(`{"type":"object","$ref":"file://` + secret + `"}`)
	b.Manifest.Tools = tools
	if e, err := LoadBundle(context.Background(), &b, Options{}); err == nil {
		defer e.Close()
		r := call(t, newEpisode(t, e, "", 1), tools[0].Name, `{}`)
		if strings.Contains(r.Content, "SECRET") {
			t.Fatalf("schema read a host file: %s", r.Content)
		}
	}
}

// One huge query result does not stay with the episode.
func TestHugeQueryResultIsNotKept(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	query(t, ep, "SELECT zeroblob(8000000) AS z")
	if cap(ep.resp) > maxKeptResponse {
		t.Fatalf("episode keeps a %d-byte buffer", cap(ep.resp))
	}
}

// Scoring with a cancelled context must not cache a wrong ground-truth hash.
func TestCancelledScoreDoesNotPoisonGroundTruth(t *testing.T) {
	e := loadEnv(t, "mini")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	newEpisode(t, e, "state-b", 1).Score(ctx, nil)
	ep := newEpisode(t, e, "state-b", 1)
	call(t, ep, "put", `{"key":"b","value":"blueberry"}`)
	if s, err := ep.Score(context.Background(), nil); err != nil || s.Reward != 1 {
		t.Fatalf("solved after a cancelled score: %+v %v", s, err)
	}
	if s, _ := newEpisode(t, e, "state-b", 1).Score(context.Background(), nil); s.Reward != 0 {
		t.Fatalf("empty episode after a cancelled score: %+v", s)
	}
}

// A null for an optional argument means the argument is absent; a null
// for a required one is still validated (and refused for a string).
func TestNullArgumentsAreAbsent(t *testing.T) {
	e := loadEnv(t, "mini")
	ep := newEpisode(t, e, "", 1)
	if r := call(t, ep, "list", `{"min_n": null, "order": null}`); r.IsError {
		t.Fatalf("nulls for optional arguments: %s", r.Content)
	}
	if r := call(t, ep, "put", `{"key": "z", "value": "v", "n": null}`); r.IsError {
		t.Fatalf("null pointer argument: %s", r.Content)
	}
	if r := call(t, ep, "get", `{"key": null}`); !r.IsError || !strings.Contains(r.Content, "invalid arguments") {
		t.Fatalf("null required argument: %s", r.Content)
	}
}

// A module whose start-up never finishes (a hand-made bundle; the compiler
// refuses init functions) fails to load instead of hanging.
func TestEndlessInitFailsToLoad(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tools"), 0o755)
	os.WriteFile(filepath.Join(dir, "env.yaml"), []byte("name: spin\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "schema.sql"), []byte("CREATE TABLE t (k INTEGER PRIMARY KEY);\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "tools", "t.go"), []byte(`package tools

func init() {
	for {
	}
}

// F does nothing.
func F() (string, error) { return "", nil }
`), 0o644)
	b, err := compiler.Build(context.Background(), dir, compiler.Options{SkipStaticChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { initTimeout = d }(initTimeout)
	initTimeout = 300 * time.Millisecond
	eachEngine(t, func(t *testing.T, engine string) {
		if e, err := LoadBundle(context.Background(), b, Options{Engine: engine}); err == nil {
			e.Close()
			t.Fatal("loaded a module whose initialization never ends")
		} else if !strings.Contains(err.Error(), "initialization") {
			t.Fatalf("error: %v", err)
		}
	})
}
