package synth_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// Names holding Unicode format characters (category Cf: bidi overrides,
// zero-width characters) never reach generated text: Go code and its
// comments, schema.sql, seed.sql, tool descriptions, task instructions
// (issue 37 finding 11). Their objects are left out and the summary says
// so with the character escaped.
func TestFormatCharactersStayOutOfGeneratedText(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE "orders` + "\u202e" + `gnp" (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), "tot` + "\u200b" + `al" REAL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), body TEXT NOT NULL);
CREATE VIEW "big` + "\u2066" + `spenders" AS SELECT id, email FROM customers;
CREATE INDEX "notes_by` + "\u200d" + `customer" ON notes(customer_id);
CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; /* ` + "\u202e" + ` */ END;
`)
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO customers VALUES (%d, '%s%d@x.io', '%s');\n", i, strings.ToLower(word(i)), i, word(i+40))
		fmt.Fprintf(&b, "INSERT INTO \"orders\u202egnp\" VALUES (%d, %d, '%s');\n", i, i, []string{"open", "shipped", "closed"}[i%3])
		fmt.Fprintf(&b, "INSERT INTO invoices VALUES (%d, %d, %d.5);\n", i, i, i)
		fmt.Fprintf(&b, "INSERT INTO notes VALUES (%d, %d, 'note %s');\n", i, i, word(i))
	}
	err = conn.Exec(b.String())
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Bundle: out + ".wasm", Tasks: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := strings.IndexFunc(string(data), func(r rune) bool { return unicode.Is(unicode.Cf, r) }); i >= 0 {
			t.Errorf("%s holds a format character: %q", path, string(data[max(0, i-40):min(len(data), i+40)]))
		}
		return nil
	})
	for _, task := range res.Tasks {
		if strings.IndexFunc(task.Instruction, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) >= 0 {
			t.Errorf("task %s: %q", task.ID, task.Instruction)
		}
	}
	skipped := strings.Join(res.Model.Skipped, "\n")
	for _, want := range []string{`orders\u202egnp`, `tot\u200bal`, `big\u2066spenders`, `notes_by\u200dcustomer`, "trigger notes_touch"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("the summary does not name %s:\n%s", want, skipped)
		}
	}
	if res.Model.Table("customers") == nil || res.Model.Table("notes") == nil || len(res.Tasks) == 0 {
		t.Errorf("the clean tables were lost too: %v", res.Model.Skipped)
	}
}
