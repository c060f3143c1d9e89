package synth_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
)

// The shapes issue 34 found giving no environment each give one now, and
// a database that cannot give a task says why in one line.
func TestShapesThatGaveNoEnvironment(t *testing.T) {
	people := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)`
	for _, c := range []struct{ name, script string }{
		// Two tables sharing one key, the reference not declared (a 1:1
		// extension), and people with no unique name.
		{"shared key", `
CREATE TABLE person (person_id INTEGER PRIMARY KEY, name TEXT NOT NULL, born TEXT NOT NULL);
CREATE TABLE employee (person_id INTEGER PRIMARY KEY, salary INTEGER, job TEXT);
` + people + ` INSERT INTO person SELECT i, (CASE i%4 WHEN 0 THEN 'Ana Ng' WHEN 1 THEN 'Bo Ruiz' WHEN 2 THEN 'Cy Berg' ELSE 'Di Kim' END), date('1970-01-01', '+' || (i*97) || ' days') FROM n;
INSERT INTO employee SELECT person_id, 1000 + 10*person_id, (CASE person_id%3 WHEN 0 THEN 'clerk' WHEN 1 THEN 'driver' ELSE 'cook' END) FROM person WHERE person_id % 2 = 0;`},
		// An app's table whose text columns default to "" (SQLite's
		// double-quoted string), with another table referring to it.
		{"default empty string", `
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE DEFAULT "");
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE DEFAULT "", body TEXT NOT NULL DEFAULT "", folder_id INTEGER REFERENCES folders(id));
INSERT INTO folders VALUES (1, 'Work'), (2, 'Home'), (3, 'Trips');
` + people + ` INSERT INTO notes SELECT i, 'Note ' || i, 'text ' || i, 1 + i%3 FROM n;`},
		// One table, no key, no unique column.
		{"single keyless table", `
CREATE TABLE readings (station TEXT, day TEXT, temp REAL, rain REAL);
` + people + ` INSERT INTO readings SELECT (CASE i%4 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Bergen' WHEN 2 THEN 'Tromsø' ELSE 'Bodø' END), date('2024-01-01', '+' || (i/4) || ' days'), 10 + (i*7)%13, (i*3)%5 FROM n;`},
		// Imported from CSV: no types, keys or references.
		{"csv import", `
CREATE TABLE customers (id, name, city);
CREATE TABLE orders (id, customer_id, placed, status);
` + people + ` INSERT INTO customers SELECT i, 'Customer ' || char(65 + i%26) || char(97 + (i*7)%26), (CASE i%3 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Rome' ELSE 'Lima' END) FROM n;
` + people + ` INSERT INTO orders SELECT 100 + i, 1 + (i*3)%40, date('2024-01-01', '+' || i || ' days'), (CASE i%3 WHEN 0 THEN 'open' WHEN 1 THEN 'paid' ELSE 'sent' END) FROM n;`},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := sqlDB(t, t.TempDir(), "db.sqlite", c.script)
			res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 12, Seed: 3})
			if err != nil {
				t.Fatalf("no environment: %v", err)
			}
			if len(res.Tasks) == 0 {
				t.Fatal("no tasks")
			}
			for _, s := range res.Model.Skipped {
				if strings.Contains(s, "left out") && strings.Contains(s, "table") {
					t.Errorf("a table was lost: %s", s)
				}
			}
		})
	}
}

// A database with nothing to ask about says why, in one line, without a
// count of attempts.
func TestNoTaskSaysWhy(t *testing.T) {
	for _, c := range []struct{ name, script, why string }{
		{"empty", `CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT UNIQUE);`, "every table is empty"},
		{"nothing to name", `CREATE TABLE samples (value REAL, weight REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20) INSERT INTO samples SELECT i * 1.5, i % 3 FROM n;`, "no row of samples can be named"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := sqlDB(t, t.TempDir(), "db.sqlite", c.script)
			_, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 5, Seed: 3})
			if !errors.Is(err, synth.ErrNoTasks) {
				t.Fatalf("err = %v, want ErrNoTasks", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.why) || strings.Contains(msg, "attempts") || strings.Contains(msg, "\n") {
				t.Errorf("why: %q, want one line saying %q", msg, c.why)
			}
		})
	}
}
