package synth_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A source database whose view runs an endless recursive CTE fails from-db
// with the reason, naming the view, instead of running for ever (issue 37
// finding 7).
func TestFromDBEndlessViewFails(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "loop.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Exec(`
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL);
INSERT INTO items VALUES (1, 'Kalo', 1.5), (2, 'Mine', 2), (3, 'Rusa', 3);
CREATE VIEW forever AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n WHERE x < 0;`)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "out"), Tasks: 3, WorkLimit: 200_000})
	var wl *dbmodel.WorkLimitError
	if !errors.As(err, &wl) || !strings.Contains(err.Error(), "view forever") {
		t.Fatalf("got %v, want a work-limit error naming view forever", err)
	}
}
