package synth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// testSchema has 11 tables: declared and undeclared references, a
// composite key, a table without a key, NULLs and unicode.
const testSchema = `
CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country_code TEXT NOT NULL REFERENCES countries(code), population INTEGER);
CREATE TABLE authors (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, full_name TEXT NOT NULL, city_id INTEGER REFERENCES cities(id), born TEXT);
CREATE TABLE publishers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city_id INTEGER);
CREATE TABLE books (isbn TEXT PRIMARY KEY, title TEXT NOT NULL, publisher_id INTEGER REFERENCES publishers(id), year INTEGER, price REAL, format TEXT NOT NULL DEFAULT 'paper' CHECK (format IN ('paper', 'hardcover', 'ebook')));
CREATE TABLE book_authors (isbn TEXT NOT NULL REFERENCES books(isbn), author_id INTEGER NOT NULL REFERENCES authors(id), role TEXT NOT NULL, PRIMARY KEY (isbn, author_id));
CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city_id INTEGER, status TEXT NOT NULL, joined_at TEXT NOT NULL);
CREATE TABLE loans (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES members(id), isbn TEXT NOT NULL REFERENCES books(isbn), loaned_at TEXT NOT NULL, returned_at TEXT);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, member_id INTEGER, isbn TEXT, stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5), body TEXT);
CREATE TABLE branches (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city_id INTEGER REFERENCES cities(id), is_open INTEGER NOT NULL DEFAULT 1);
CREATE TABLE audit_log (at TEXT, member_id INTEGER, action TEXT);
`

// word spells i in syllables ("Kalo"), so that names carry no digits that
// could be mistaken for ids.
func word(i int) string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "xi", "yu", "za", "be"}
	s := ""
	for {
		s = syl[i%len(syl)] + s
		i /= len(syl)
		if i == 0 {
			break
		}
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// makeDB builds the test database with deterministic data.
func makeDB(t testing.TB, path string, scale int) {
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(testSchema + "BEGIN;"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	ex := func(sql string, args ...any) {
		s, _, err := conn.Prepare(sql)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i, a := range args {
			switch v := a.(type) {
			case int:
				s.BindInt(i+1, v)
			case float64:
				s.BindFloat(i+1, v)
			case string:
				s.BindText(i+1, v)
			case nil:
				s.BindNull(i + 1)
			}
		}
		if err := s.Exec(); err != nil {
			t.Fatal(sql, err)
		}
	}
	countries := []string{"Deutschland", "日本", "France", "España", "Ελλάδα", "Canada"}
	for i, c := range countries {
		ex(`INSERT INTO countries VALUES (?, ?)`, fmt.Sprintf("C%c", 'A'+i), c)
	}
	nCities := 20 * scale
	for i := 1; i <= nCities; i++ {
		var pop any = 1000 * (i + 7)
		if i%5 == 0 {
			pop = nil
		}
		ex(`INSERT INTO cities VALUES (?, ?, ?, ?)`, i, "Città "+word(i), fmt.Sprintf("C%c", 'A'+i%6), pop)
	}
	statuses := []string{"active", "suspended", "closed"}
	formats := []string{"paper", "hardcover", "ebook"}
	roles := []string{"author", "editor", "translator"}
	nAuthors, nPubs, nBooks, nMembers := 30*scale, 8*scale, 80*scale, 60*scale
	for i := 1; i <= nAuthors; i++ {
		var city any = 1 + r.IntN(nCities)
		if i%7 == 0 {
			city = nil
		}
		ex(`INSERT INTO authors VALUES (?, ?, ?, ?, ?)`, i, fmt.Sprintf("author%d@example.org", i), "Zoë "+word(i), city, fmt.Sprintf("19%02d-01-%02d", 40+i%60, 1+i%28))
	}
	for i := 1; i <= nPubs; i++ {
		ex(`INSERT INTO publishers VALUES (?, ?, ?)`, i, "Verlag Nº "+word(i), 1+r.IntN(nCities))
	}
	for i := 1; i <= nBooks; i++ {
		var price any = float64(500+r.IntN(5000)) / 100
		if i%9 == 0 {
			price = nil
		}
		ex(`INSERT INTO books VALUES (?, ?, ?, ?, ?, ?)`, fmt.Sprintf("978-%07d", i), "The Book of "+word(i), 1+r.IntN(nPubs), 1950+r.IntN(70), price, formats[r.IntN(3)])
		for j := 0; j < 1+r.IntN(3); j++ {
			ex(`INSERT OR IGNORE INTO book_authors VALUES (?, ?, ?)`, fmt.Sprintf("978-%07d", i), 1+r.IntN(nAuthors), roles[r.IntN(3)])
		}
	}
	for i := 1; i <= nMembers; i++ {
		ex(`INSERT INTO members VALUES (?, ?, ?, ?, ?, ?)`, i, fmt.Sprintf("member%d@example.net", i), "Mitglied "+word(i), 1+r.IntN(nCities), statuses[r.IntN(3)], fmt.Sprintf("2023-%02d-%02d", 1+i%12, 1+i%28))
	}
	for i := 1; i <= 150*scale; i++ {
		var ret any = fmt.Sprintf("2024-02-%02d", 1+i%28)
		if i%3 == 0 {
			ret = nil
		}
		ex(`INSERT INTO loans VALUES (?, ?, ?, ?, ?)`, i, 1+r.IntN(nMembers), fmt.Sprintf("978-%07d", 1+r.IntN(nBooks)), fmt.Sprintf("2024-01-%02d", 1+i%28), ret)
	}
	for i := 1; i <= 100*scale; i++ {
		ex(`INSERT INTO reviews VALUES (?, ?, ?, ?, ?)`, i, 1+r.IntN(nMembers), fmt.Sprintf("978-%07d", 1+r.IntN(nBooks)), 1+r.IntN(5), "Très bien — 很好")
	}
	for i := 1; i <= 5; i++ {
		ex(`INSERT INTO branches VALUES (?, ?, ?, ?)`, i, "Branch "+word(i), 1+r.IntN(nCities), i%2)
	}
	for i := 1; i <= 40; i++ {
		ex(`INSERT INTO audit_log VALUES (?, ?, ?)`, fmt.Sprintf("2024-03-%02d", 1+i%28), 1+r.IntN(nMembers), []string{"login", "loan", "return"}[i%3])
	}
	if err := conn.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
}

// storeDB writes the example store environment's database to a file.
func storeDB(t testing.TB, dir string) string { return exampleDB(t, dir, "store") }

// exampleDB writes an example environment's database to a file.
func exampleDB(t testing.TB, dir, name string) string {
	b, err := compiler.Build(context.Background(), "../envs/"+name, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".sqlite")
	if err := os.WriteFile(path, b.DB, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, db string, n int) *synth.Result {
	t.Helper()
	res, _ := runOut(t, db, n)
	return res
}

func runOut(t *testing.T, db string, n int) (*synth.Result, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "env")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Bundle: out + ".wasm", Tasks: n, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	res.Summary.Print(testWriter{t})
	return res, out
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// checkResult asserts the done-means properties and replays every kept
// task from the written bundle.
func checkResult(t *testing.T, res *synth.Result, n int) {
	s := res.Summary
	if s.SmokePassed != s.Tools || s.Tools == 0 {
		t.Errorf("smoke: %d of %d", s.SmokePassed, s.Tools)
	}
	if len(res.Tasks) != n {
		t.Errorf("kept %d tasks, want %d", len(res.Tasks), n)
	}
	// Chains, not only one-call lookups: most tasks take two calls or
	// more, and some three. Few hops, as people ask (issue 28's judged
	// naturalness: the walk makes only the hops a person makes,
	// docs/SYNTHESIS.md "The rules that judgement asked for"), so not the
	// third of 3+ call chains it was.
	twoPlus := 0
	for calls, k := range s.Tasks.ChainHist {
		if calls >= 2 {
			twoPlus += k
		}
	}
	if 2*twoPlus < len(res.Tasks) || s.Chain3Plus == 0 {
		t.Errorf("%d of %d tasks chain 2+ calls, %.0f%% 3+", twoPlus, len(res.Tasks), 100*s.Chain3Plus)
	}
	if s.Tasks.Reads == 0 || s.Tasks.Writes == 0 {
		t.Errorf("reads %d writes %d", s.Tasks.Reads, s.Tasks.Writes)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	// The project's own environment test agrees with the gates.
	rep, err := envtest.Run(context.Background(), env, envtest.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tasks {
		if len(tr.Problems) > 0 {
			t.Errorf("envtest: task %s: %v", tr.ID, tr.Problems)
		}
	}
	gt, rnd, solved := replayAndRandom(t, env)
	t.Logf("mean reward: ground truth %.3f, random schema-valid policy %.3f, which solves %d of %d tasks", gt, rnd, solved, len(res.Bundle.Tasks))
	if gt != 1 {
		t.Errorf("ground truth mean reward %.3f, want 1", gt)
	}
	if rnd > 0.6*gt {
		t.Errorf("random policy %.3f is not clearly below the ground truth %.3f", rnd, gt)
	}
}

// replayAndRandom scores every task of env twice: replaying its ground
// truth, and with a random policy that makes as many calls with random
// schema-valid arguments (values drawn from what earlier calls returned,
// or random) and answers with its last result.
func replayAndRandom(t *testing.T, env *runtime.Env) (float64, float64, int) {
	ctx := context.Background()
	tools := env.Tools()
	r := rand.New(rand.NewPCG(3, 4))
	var gt, rnd float64
	solved := 0
	for _, task := range env.Bundle.Tasks {
		ep, err := env.NewEpisode(task.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range task.Calls {
			if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
				t.Fatal(err)
			}
		}
		var ans *string
		if task.Answer != nil {
			reply := task.Answer.Reply()
			ans = &reply
		}
		s, err := ep.Score(ctx, ans)
		if err != nil {
			t.Fatal(err)
		}
		if !s.AllPassed {
			t.Errorf("task %s: ground truth scores %.2f", task.ID, s.Reward)
		}
		gt += s.Reward
		ep.Reset()
		last := ""
		var seen []any
		for range len(task.Calls) {
			tool := tools[r.IntN(len(tools))]
			args := randomArgs(r, tool, seen)
			res, err := ep.Call(ctx, tool.Name, args)
			if err != nil {
				t.Fatal(err)
			}
			last = res.Content
			seen = append(seen, values(res.Content)...)
		}
		s, err = ep.Score(ctx, &last)
		if err != nil {
			t.Fatal(err)
		}
		rnd += s.Reward
		if s.AllPassed {
			solved++
		}
		ep.Close()
	}
	n := float64(len(env.Bundle.Tasks))
	return gt / n, rnd / n, solved
}

func values(content string) []any {
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		return nil
	}
	var out []any
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case string, float64:
			out = append(out, x)
		}
	}
	walk(v)
	return out
}

func randomArgs(r *rand.Rand, tool envpkg.Tool, seen []any) json.RawMessage {
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(tool.InputSchema, &schema)
	args := map[string]any{}
	for _, name := range schema.Required {
		p := schema.Properties[name]
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[r.IntN(len(p.Enum))]
		case p.Type == "string":
			args[name] = fmt.Sprint(pickSeen(r, seen, "x"))
			if _, ok := args[name].(string); !ok {
				args[name] = "x"
			}
		case p.Type == "integer":
			if f, ok := pickSeen(r, seen, 1.0).(float64); ok {
				args[name] = int64(f)
			} else {
				args[name] = r.IntN(100)
			}
		case p.Type == "number":
			args[name] = r.Float64() * 100
		case p.Type == "boolean":
			args[name] = r.IntN(2) == 0
		}
	}
	b, _ := json.Marshal(args)
	return b
}

func pickSeen(r *rand.Rand, seen []any, dflt any) any {
	if len(seen) == 0 || r.IntN(4) == 0 {
		return dflt
	}
	return seen[r.IntN(len(seen))]
}

func TestFromDBBuiltDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "library.sqlite")
	makeDB(t, db, 1)
	res := run(t, db, 120)
	if len(res.Model.Tables) < 10 {
		t.Fatalf("%d tables", len(res.Model.Tables))
	}
	if !res.Model.Table("audit_log").RowID || len(res.Model.Table("book_authors").PrimaryKey) != 2 {
		t.Error("rowid table or composite key not recognized")
	}
	inferred := 0
	for _, tb := range res.Model.Tables {
		for _, fk := range tb.ForeignKeys {
			if fk.Inferred {
				inferred++
			}
		}
	}
	if inferred < 3 { // publishers.city_id, members.city_id, reviews.member_id, reviews.isbn, audit_log.member_id
		t.Errorf("only %d inferred references", inferred)
	}
	for _, name := range []string{"list_loans_of_member", "get_member_of_loan", "find_member_by_email", "list_book_authors_of_book", "create_loan", "delete_member"} {
		if res.Spec.Tool(name) == nil {
			t.Errorf("no tool %s", name)
		}
	}
	checkResult(t, res, 120)
}

// TestFromDBExamples: the other example environments with structured
// tables (the τ-bench ports keep records as JSON text; see SYNTHESIS.md).
func TestFromDBExamples(t *testing.T) {
	for _, name := range []string{"calendar", "messaging"} {
		t.Run(name, func(t *testing.T) {
			res := run(t, exampleDB(t, t.TempDir(), name), 40)
			checkResult(t, res, 40)
		})
	}
}

func TestFromDBStore(t *testing.T) {
	res, out := runOut(t, storeDB(t, t.TempDir()), 150)
	checkResult(t, res, 150)
	// The written directory is the environment: building it gives the
	// very bundle FromDB wrote.
	b, err := compiler.Build(context.Background(), out, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Hash != res.Bundle.Hash {
		t.Errorf("rebuilt bundle hash %s, FromDB's %s", b.Hash, res.Bundle.Hash)
	}
	strayWritesFail(t, res)
	// Same source, same seed: the same environment, byte for byte.
	again, _ := runOut(t, storeDB(t, t.TempDir()), 150)
	if again.Bundle.Hash != res.Bundle.Hash {
		t.Errorf("two runs with one seed differ: %s, %s", again.Bundle.Hash, res.Bundle.Hash)
	}
	written, err := envpkg.Read(out + ".wasm")
	if err != nil || written.Hash != res.Bundle.Hash {
		t.Errorf("bundle file: %v, hash %s", err, written.Hash)
	}
}

// strayWritesFail: for pairs of write tasks that end with the same tool on
// different rows, doing task A's calls plus B's last call (a stray write
// to the same table, often to the same column) must not solve A.
func strayWritesFail(t *testing.T, res *synth.Result) {
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ctx := context.Background()
	pairs := 0
	for _, a := range res.Tasks {
		if len(a.Checks) == 0 {
			continue
		}
		la := a.Calls[len(a.Calls)-1]
		for _, b := range res.Tasks {
			lb := b.Calls[len(b.Calls)-1]
			if a.ID == b.ID || la.Name != lb.Name || string(la.Arguments) == string(lb.Arguments) || !strings.HasPrefix(lb.Name, "update_") && !strings.HasPrefix(lb.Name, "delete_") {
				continue
			}
			ep, err := env.NewEpisode(a.ID, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range append(append([]envpkg.Call{}, a.Calls...), lb) {
				if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
					t.Fatal(err)
				}
			}
			s, err := ep.Score(ctx, nil)
			ep.Close()
			if err != nil {
				t.Fatal(err)
			}
			if s.AllPassed {
				t.Errorf("task %s still passes after the stray write %s %s", a.ID, lb.Name, lb.Arguments)
			}
			pairs++
			break
		}
	}
	if pairs < 10 {
		t.Errorf("only %d stray-write pairs tried", pairs)
	}
	t.Logf("stray writes caught in %d of %d tries", pairs, pairs)
}
