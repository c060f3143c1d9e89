package synth_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestGeneratedToolsBehave calls generated tools of the test database
// directly: lookups, filters, paging, references both ways, and writes
// that break a rule come back as clear tool errors with nothing changed.
func TestGeneratedToolsBehave(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "library.sqlite")
	makeDB(t, db, 1)
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	call := func(name, args string) runtime.Result {
		t.Helper()
		r, err := ep.Call(context.Background(), name, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		tool, args string
		outcome    runtime.Outcome
		want       string
	}{
		{"find_member_by_email", `{"email": "MEMBER3@example.net"}`, runtime.OutcomeOK, `"id":3`},
		{"find_author_by_email", `{"email": "nobody@example.org"}`, runtime.OutcomeToolError, "not found"},
		{"get_country", `{"code": "CB"}`, runtime.OutcomeOK, "日本"},
		{"list_books", `{"format": "ebook", "min_year": 1990, "sort_by": "price", "descending": true, "limit": 2}`, runtime.OutcomeOK, `"offset":0`},
		{"list_books", `{"format": "scroll"}`, runtime.OutcomeInvalidArgs, ""},
		{"list_books", `{"limit": 1000}`, runtime.OutcomeToolError, "limit must be between 1 and 100"},
		{"list_cities", `{"name_contains": "città lo"}`, runtime.OutcomeOK, "Città Lo"},
		{"list_loans_of_member", `{"member_id": 5}`, runtime.OutcomeOK, `"items"`},
		{"list_loans_of_member", `{"member_id": 99999}`, runtime.OutcomeToolError, "member 99999 not found"},
		{"get_member_of_loan", `{"id": 1}`, runtime.OutcomeOK, `"email"`},
		{"get_book_author", `{"isbn": "978-0000001", "author_id": 999}`, runtime.OutcomeToolError, "not found"},
		{"get_audit_log", `{"row_id": 1}`, runtime.OutcomeOK, `"action"`},
		{"create_loan", `{"member_id": 99999, "isbn": "978-0000001", "loaned_at": "2024-05-01"}`, runtime.OutcomeToolError, "member 99999 does not exist"},
		{"create_country", `{"code": "CA", "name": "Duplicate"}`, runtime.OutcomeToolError, "another row already has the same value"},
		{"create_review", `{"member_id": 1, "isbn": "978-0000001", "stars": 9}`, runtime.OutcomeToolError, "breaks the rule"},
		{"delete_member", `{"id": 1}`, runtime.OutcomeToolError, "refer to it"},
		{"update_book", `{"isbn": "978-0000002"}`, runtime.OutcomeToolError, "nothing to update"},
		{"update_book", `{"isbn": "978-0000002", "publisher_id": 4242}`, runtime.OutcomeToolError, "publisher 4242 does not exist"},
		{"update_branch", `{"id": 2, "is_open": true}`, runtime.OutcomeOK, `"is_open":1`},
		{"create_loan", `{"member_id": 2, "isbn": "978-0000003", "loaned_at": "2024-05-01"}`, runtime.OutcomeOK, `"loaned_at":"2024-05-01"`},
	} {
		r := call(c.tool, c.args)
		if r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %q, want %s containing %q", c.tool, c.args, r.Outcome, r.Content, c.outcome, c.want)
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 2 || len(d["loans"]) != 1 || len(d["branches"]) != 1 {
		t.Errorf("only the two successful writes should show in the diff: %v", d)
	}
}

func TestReadOnlyAndGraph(t *testing.T) {
	db := filepath.Join(t.TempDir(), "library.sqlite")
	makeDB(t, db, 1)
	m, err := dbmodel.Open(db, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := toolgen.Generate(m, toolgen.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range spec.Tools {
		if tl.Kind.Writes() {
			t.Errorf("read-only toolset has %s", tl.Name)
		}
	}
	g := graph.Build(spec)
	st := g.Stats()
	if st.Strong == 0 || st.Weak == 0 || st.Independent == 0 || st.Internal == 0 {
		t.Errorf("graph stats: %+v", st)
	}
	// find_member_by_email outputs the member's id, which list_loans_of_member needs.
	found := false
	for _, e := range g.Out("find_member_by_email") {
		if e.To == "list_loans_of_member" && e.Field == "id" && e.Param == "member_id" && e.Strength == graph.Strong {
			found = true
		}
	}
	if !found {
		t.Error("no strong edge find_member_by_email.id → list_loans_of_member.member_id")
	}
	if n := g.Node("list_loans_of_member"); n == nil || n.Independent {
		t.Errorf("list_loans_of_member needs an internal id: %+v", n)
	}
	if n := g.Node("find_member_by_email"); n == nil || !n.Independent {
		t.Errorf("find_member_by_email is an entry point: %+v", n)
	}
	dot := g.DOT(false)
	if !strings.HasPrefix(dot, "digraph tools {") || !strings.Contains(dot, `"find_member_by_email" -> "list_loans_of_member"`) {
		t.Errorf("DOT:\n%s", dot[:min(len(dot), 400)])
	}
}

func TestFromJSONCollections(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "data")
	os.Mkdir(src, 0o755)
	os.WriteFile(filepath.Join(src, "users.json"), []byte(`{
 "u1": {"name": "Ada Lovelace", "email": "ada@example.com", "plan": "pro", "tags": ["a", "b"]},
 "u2": {"name": "Alan Turing", "email": "alan@example.com", "plan": "free", "tags": []},
 "u3": {"name": "Grace Hopper", "email": "grace@example.com", "plan": "free", "tags": null},
 "u4": {"name": "Édith Piaf", "email": "edith@example.com", "plan": "pro"}}`), 0o644)
	var orders strings.Builder
	for i := range 24 {
		status := []string{"open", "shipped", "done"}[i%3]
		orders.WriteString(`{"order_id": "o` + string(rune('a'+i)) + `", "user_id": "u` + string(rune('1'+i%4)) + `", "status": "` + status + `", "total": ` + string(rune('1'+i%9)) + `.5}` + "\n")
	}
	os.WriteFile(filepath.Join(src, "orders.jsonl"), []byte(orders.String()), 0o644)
	res, err := synth.FromDB(context.Background(), src, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 20, Seed: 3, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	u := res.Model.Table("users")
	if u == nil || len(u.PrimaryKey) != 1 || u.PrimaryKey[0] != "user_id" {
		t.Fatalf("users: %+v", u)
	}
	fk := res.Model.Table("orders").ForeignKeyOf("user_id")
	if fk == nil || !fk.Inferred || fk.RefTable != "users" {
		t.Errorf("orders.user_id reference not inferred: %+v", fk)
	}
	if res.Spec.Tool("list_orders_of_user") == nil || res.Spec.Tool("find_user_by_email") == nil {
		t.Error("missing reference or natural-key tools")
	}
	if len(res.Tasks) == 0 || res.Summary.Tasks.Writes != 0 || res.Spec.Tool("update_user") != nil {
		t.Errorf("read-only: %d tasks, %d writes", len(res.Tasks), res.Summary.Tasks.Writes)
	}
}
