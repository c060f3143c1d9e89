package tasks_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// TestNoUniqueNameColumn: a database with no unique human-readable column
// (people known by first and last name together, offices by name and
// city) still yields tasks, which start from what a person would say.
func TestNoUniqueNameColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clinic.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sql := `CREATE TABLE offices (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL, phone TEXT);
CREATE TABLE patients (id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, office_id INTEGER REFERENCES offices(id), status TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'moved')));
CREATE TABLE visits (id INTEGER PRIMARY KEY, patient_id INTEGER NOT NULL REFERENCES patients(id), day TEXT NOT NULL, reason TEXT NOT NULL);
BEGIN;`
	firsts := []string{"Ana", "Bruno", "Chloé", "Dmitri", "Elena", "Farid", "Greta", "Hiro"}
	lasts := []string{"García", "Okafor", "Novak", "Silva", "Brown", "Cohen"}
	for i := 1; i <= 6; i++ {
		sql += fmt.Sprintf("INSERT INTO offices VALUES (%d, 'Clinic %s', '%s', NULL);\n", i, []string{"North", "South"}[i%2], []string{"Lisbon", "Porto", "Braga"}[i%3])
	}
	n := 0
	for i, f := range firsts {
		for j, l := range lasts {
			if (i+j)%2 == 0 {
				continue
			}
			n++
			sql += fmt.Sprintf("INSERT INTO patients VALUES (%d, '%s', '%s', %d, '%s');\n", n, f, l, 1+n%6, []string{"active", "inactive", "moved"}[n%3])
			for k := range 1 + n%3 {
				sql += fmt.Sprintf("INSERT INTO visits VALUES (NULL, %d, '2024-%02d-%02d', '%s');\n", n, 1+k, 1+n%27, []string{"checkup", "flu", "follow-up"}[(n+k)%3])
			}
		}
	}
	if err := conn.Exec(sql + "COMMIT;"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res := fromDB(t, path, synth.Options{Tasks: 20})
	// (The set may be smaller than asked: plain tasks fill at most a
	// quarter of it, and the summary says why it is short.)
	if len(res.Tasks) == 0 {
		t.Fatalf("kept no task: %s", res.Summary.Tasks.Short)
	}
	named := 0
	for _, task := range res.Tasks {
		for _, f := range firsts {
			if strings.Contains(task.Instruction, f+" ") {
				named++
				break
			}
		}
	}
	if named == 0 {
		t.Error("no task names a patient by first and last name")
	}
}
