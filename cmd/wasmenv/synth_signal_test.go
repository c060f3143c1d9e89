package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// SIGTERM ends `synth from-db` while it reads a view that never ends: the
// query watches the command's context (issue 37 finding 7; before, SIGINT
// and SIGTERM were ignored at 100% CPU).
func TestSynthFromDBEndsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "loop.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Exec(`
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO items VALUES (1, 'Kalo'), (2, 'Mine');
CREATE VIEW forever AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n WHERE x < 0;`)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "synth", "from-db", db, "-o", filepath.Join(dir, "out"), "--work-limit", "4000000000000000000")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the tables are read ("tables: 1/1"), the views are next.
	lines := bufio.NewScanner(stderr)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.HasPrefix(lines.Text(), "tables: 1/1") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		seen = append(seen, lines.Text())
	}
	err = cmd.Wait()
	out := strings.Join(seen, "\n")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "context canceled") {
		t.Fatalf("exit %v, stderr:\n%s", err, out)
	}
}
