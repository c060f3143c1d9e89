package tasks_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// addressDB: customers and their invoices with whole addresses (street,
// city, state, country, postal code) in three countries.
func addressDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "addr.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	places := [][4]string{
		{"San Jose", "CA", "USA", "95101"}, {"Los Angeles", "CA", "USA", "90001"}, {"New York", "NY", "USA", "10001"}, {"Buffalo", "NY", "USA", "14201"},
		{"São Paulo", "SP", "Brazil", "01000-000"}, {"Campinas", "SP", "Brazil", "13010-000"}, {"Rio de Janeiro", "RJ", "Brazil", "20000-000"},
		{"Toronto", "ON", "Canada", "M5V 2T6"}, {"Ottawa", "ON", "Canada", "K1P 1J1"}, {"Montréal", "QC", "Canada", "H2X 1Y4"},
	}
	firsts := []string{"Ana", "Bruno", "Chloé", "Dmitri", "Elena", "Farid"}
	lasts := []string{"García", "Okafor", "Novak", "Silva", "Brown", "Tanaka"}
	sql := `CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
	  address TEXT, city TEXT, state TEXT, country TEXT, postal_code TEXT, phone TEXT);
	CREATE TABLE invoices (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER NOT NULL REFERENCES customers(id), InvoiceDate TEXT NOT NULL,
	  BillingAddress TEXT, BillingCity TEXT, BillingState TEXT, BillingCountry TEXT, BillingPostalCode TEXT);
	BEGIN;`
	n := 0
	for i, f := range firsts {
		for j, l := range lasts {
			n++
			p := places[(i*5+j)%len(places)]
			sql += fmt.Sprintf("INSERT INTO customers VALUES (%d, '%s.%s%d@example.org', '%s', '%s', '%d Main Street', '%s', '%s', '%s', '%s', '+1 555 %04d');\n",
				n, strings.ToLower(f), strings.ToLower(l), n, f, l, 10+n, p[0], p[1], p[2], p[3], 1000+n)
			for k := range 2 {
				q := places[(i+j+k)%len(places)]
				sql += fmt.Sprintf("INSERT INTO invoices (CustomerId, InvoiceDate, BillingAddress, BillingCity, BillingState, BillingCountry, BillingPostalCode) VALUES (%d, '2024-%02d-%02d', '%d Oak Avenue', '%s', '%s', '%s', '%s');\n",
					n, 1+(n+k)%12, 1+n%28, n+k, q[0], q[1], q[2], q[3])
			}
		}
	}
	if err := conn.Exec(sql + "COMMIT;"); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAddressMovesTogether: a change to a part of an address comes with
// the parts that go with it, from a real address that agrees on the wider
// ones: no Brazilian customer in state NY, no Toronto in Québec.
func TestAddressMovesTogether(t *testing.T) {
	db := addressDB(t)
	share := 1.0
	res := fromDB(t, db, synth.Options{Tasks: 40, WriteShare: &share})
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	known := map[string]bool{}
	for _, q := range []string{`SELECT city, state, country FROM customers`, `SELECT BillingCity, BillingState, BillingCountry FROM invoices`} {
		stmt, _, err := conn.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		for stmt.Step() {
			known[stmt.ColumnText(0)+"|"+stmt.ColumnText(1)+"|"+stmt.ColumnText(2)] = true
		}
		stmt.Close()
	}
	placeWrites := 0
	for _, task := range res.Tasks {
		for _, call := range task.Calls {
			var args map[string]any
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			var table, key string
			var cols [3]string
			switch call.Name {
			case "update_customer":
				table, key, cols = "customers", "id", [3]string{"city", "state", "country"}
			case "update_invoice":
				table, key, cols = "invoices", "InvoiceId", [3]string{"BillingCity", "BillingState", "BillingCountry"}
			default:
				continue
			}
			stmt, _, err := conn.Prepare(fmt.Sprintf(`SELECT %s, %s, %s FROM %s WHERE %s = ?`, cols[0], cols[1], cols[2], table, key))
			if err != nil {
				t.Fatal(err)
			}
			var id any
			for k, v := range args {
				if strings.EqualFold(strings.ReplaceAll(k, "_", ""), strings.ToLower(key)) {
					id = v
				}
			}
			stmt.BindInt64(1, int64(id.(float64)))
			if !stmt.Step() {
				t.Fatalf("%s: no row %v", task.ID, id)
			}
			row := [3]string{stmt.ColumnText(0), stmt.ColumnText(1), stmt.ColumnText(2)}
			stmt.Close()
			changed := false
			for i, c := range cols {
				for k, v := range args {
					if strings.EqualFold(strings.ReplaceAll(k, "_", ""), strings.ToLower(c)) {
						row[i], changed = fmt.Sprint(v), true
					}
				}
			}
			if !changed {
				continue
			}
			placeWrites++
			if !known[strings.Join(row[:], "|")] {
				t.Errorf("%s: %s leaves the address at %v, a place no row has: %s", task.ID, call.Name, row, task.Instruction)
			}
		}
	}
	if placeWrites == 0 {
		t.Error("no task changes an address")
	}
}

// TestCreatesAreNew: a create never repeats a row that exists on what
// names it (a title, a name, an email): the template row's own values
// made "new" reviews titled like an existing one, and employees that
// were already on the staff.
func TestCreatesAreNew(t *testing.T) {
	db := filepath.Join(t.TempDir(), "music.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sql := `CREATE TABLE artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
	CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER, artist_id INTEGER NOT NULL REFERENCES artists(id));`
	for i, a := range []string{"Deep Purple", "Os Mutantes", "Björk", "Nina Simone", "Miles Davis", "Kraftwerk"} {
		sql += fmt.Sprintf("INSERT INTO artists VALUES (%d, '%s');\n", i+1, a)
		for k := range 3 {
			sql += fmt.Sprintf("INSERT INTO albums (title, year, artist_id) VALUES ('Album %c%d', %d, %d);\n", 'A'+i, k, 1970+3*i+k, i+1)
		}
	}
	if err := conn.Exec(sql); err != nil {
		t.Fatal(err)
	}
	share := 1.0
	res := fromDB(t, db, synth.Options{Tasks: 30, WriteShare: &share})
	for _, task := range res.Tasks {
		last := task.Calls[len(task.Calls)-1]
		table, ok := strings.CutPrefix(last.Name, "create_")
		if !ok {
			continue
		}
		var args map[string]any
		if err := json.Unmarshal(last.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		for col, v := range args {
			if !strings.Contains(col, "name") && !strings.Contains(col, "title") && !strings.Contains(col, "email") {
				continue
			}
			stmt, _, err := conn.Prepare(fmt.Sprintf(`SELECT COUNT(*) FROM %ss WHERE %s = ?`, strings.TrimSuffix(table, "s"), col))
			if err != nil {
				t.Fatal(err)
			}
			stmt.BindText(1, fmt.Sprint(v))
			stmt.Step()
			if stmt.ColumnInt(0) > 0 {
				t.Errorf("%s: creates a %s with %s %q, which exists: %s", task.ID, table, col, v, task.Instruction)
			}
			stmt.Close()
		}
	}
}

// TestLinksByName: a row of a link table is added by naming the two rows
// it links ("Please add the category "Drama" to the film "Alpha"") and
// removed the same way, never as "a film category".
func TestLinksByName(t *testing.T) {
	db := filepath.Join(t.TempDir(), "films.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sql := `CREATE TABLE film (film_id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, length INTEGER);
	CREATE TABLE category (category_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
	CREATE TABLE film_category (film_id INTEGER NOT NULL REFERENCES film(film_id), category_id INTEGER NOT NULL REFERENCES category(category_id),
	  last_update TEXT NOT NULL, PRIMARY KEY (film_id, category_id));`
	cats := []string{"Drama", "Comedy", "Horror", "Travel", "Music", "Sports"}
	for i, c := range cats {
		sql += fmt.Sprintf("INSERT INTO category VALUES (%d, '%s');\n", i+1, c)
	}
	for i := range 30 {
		sql += fmt.Sprintf("INSERT INTO film VALUES (%d, 'FILM %c%c', %d);\n", i+1, 'A'+i%26, 'A'+i/26, 80+i)
		sql += fmt.Sprintf("INSERT INTO film_category VALUES (%d, %d, '2006-02-15 05:07:09');\n", i+1, 1+i%len(cats))
	}
	if err := conn.Exec(sql); err != nil {
		t.Fatal(err)
	}
	share := 1.0
	res := fromDB(t, db, synth.Options{Tasks: 40, WriteShare: &share})
	links := 0
	for _, task := range res.Tasks {
		last := task.Calls[len(task.Calls)-1].Name
		if last != "create_film_category" && last != "delete_film_category" {
			continue
		}
		links++
		if strings.Contains(task.Instruction, "film category") || !strings.Contains(task.Instruction, "category \"") || !strings.Contains(task.Instruction, "film \"") {
			t.Errorf("%s: %s", task.ID, task.Instruction)
		}
	}
	if links == 0 {
		t.Error("no task adds or removes a film's category")
	}
}
