package synth_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// Table names long enough to make tool names over 64 characters (OpenAI's
// limit, ^[a-zA-Z0-9_-]{1,64}$) no longer fail synthesis: the names are
// shortened, stay unique, and the summary lists each (issue 37 finding
// 15). Two tables share their first 80 characters; one name is 200 long.
func TestLongTableNamesGiveShortToolNames(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "long.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "customer_relationship_management_" + strings.Repeat("archived_", 5) // 78 characters
	a, b, c := prefix+"accounts", prefix+"contacts", strings.Repeat("very_long_", 20)+"notes"
	var sb strings.Builder
	fmt.Fprintf(&sb, `CREATE TABLE %q (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE %q (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES %q(id), name TEXT NOT NULL UNIQUE, status TEXT NOT NULL);
CREATE TABLE %q (id INTEGER PRIMARY KEY, contact_id INTEGER NOT NULL REFERENCES %q(id), body TEXT NOT NULL);
`, a, b, a, c, b)
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&sb, "INSERT INTO %q VALUES (%d, '%s%d@x.io', '%s');\n", a, i, strings.ToLower(word(i)), i, word(i+30))
		fmt.Fprintf(&sb, "INSERT INTO %q VALUES (%d, %d, '%s', '%s');\n", b, i, i, word(i+60), []string{"new", "active"}[i%2])
		fmt.Fprintf(&sb, "INSERT INTO %q VALUES (%d, %d, 'note %s');\n", c, i, i, word(i))
	}
	err = conn.Exec(sb.String())
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Bundle: out + ".wasm", Tasks: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	seen := map[string]bool{}
	for _, tl := range res.Bundle.Manifest.Tools {
		if !valid.MatchString(tl.Name) || seen[tl.Name] {
			t.Errorf("tool name %q (%d characters)", tl.Name, len(tl.Name))
		}
		seen[tl.Name] = true
	}
	if len(seen) < 15 {
		t.Errorf("only %d tools", len(seen))
	}
	renamed := 0
	for _, s := range res.Summary.Skipped {
		if strings.Contains(s, "shortened to") {
			renamed++
		}
	}
	if renamed == 0 || renamed > len(seen) {
		t.Errorf("%d shortened names in the summary:\n%s", renamed, strings.Join(res.Summary.Skipped, "\n"))
	}
	if len(res.Tasks) == 0 {
		t.Error("no task")
	}
}
