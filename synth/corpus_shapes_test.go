package synth_test

import (
	"fmt"
	"strings"
)

// librarySQL is the library a new user made (issue 28): eight tables, one
// named with a space, two self-references (a member's referrer, a staff
// member's supervisor), a table without a key, a view, an audit trigger,
// surnames that repeat, non-ASCII emails.
var librarySQL = `
PRAGMA foreign_keys = OFF;
CREATE TABLE branches (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT NOT NULL);
CREATE TABLE staff (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
  branch_id INTEGER NOT NULL REFERENCES branches(id), supervisor_id INTEGER REFERENCES staff(id));
CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
  joined_on TEXT NOT NULL, referred_by INTEGER REFERENCES members(id),
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'closed')));
CREATE TABLE "book titles" (isbn TEXT PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL, year INTEGER CHECK (year > 1400));
CREATE TABLE copies (id INTEGER PRIMARY KEY, barcode TEXT NOT NULL UNIQUE, isbn TEXT NOT NULL REFERENCES "book titles"(isbn),
  branch_id INTEGER NOT NULL REFERENCES branches(id));
CREATE TABLE loans (id INTEGER PRIMARY KEY AUTOINCREMENT, copy_id INTEGER NOT NULL REFERENCES copies(id),
  member_id INTEGER NOT NULL REFERENCES members(id), checked_out_by INTEGER NOT NULL REFERENCES staff(id),
  loaned_on TEXT NOT NULL, due_on TEXT NOT NULL, returned_on TEXT, fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
  CHECK (due_on > loaned_on));
CREATE TABLE audit_log (at TEXT NOT NULL, action TEXT NOT NULL, loan_id INTEGER);
CREATE TABLE holidays (day TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
CREATE VIEW open_loans AS SELECT l.id AS loan_id, m.email, c.barcode, l.due_on FROM loans l JOIN members m ON m.id = l.member_id
  JOIN copies c ON c.id = l.copy_id WHERE l.returned_on IS NULL;
` + libraryData + `
CREATE TRIGGER loans_audit AFTER INSERT ON loans BEGIN
  INSERT INTO audit_log (at, action, loan_id) VALUES (NEW.loaned_on, 'checkout', NEW.id);
END;
`

// libraryData fills the library with deterministic rows.
var libraryData = func() string {
	var b strings.Builder
	first := []string{"Elena", "Omar", "Yuki", "Chloé", "Björn", "Amara", "Ravi", "Lucía", "Noah", "Ingrid", "Tomás", "Zanele", "Mei", "Kofi"}
	last := []string{"García", "Cohen", "Brown", "Nakamura", "Okafor", "Müller", "Silva", "Novak", "Haddad", "Larsen", "Rossi", "Dubois"}
	cities := []string{"Lisbon", "Kraków", "Osaka", "Accra"}
	for i, c := range cities {
		fmt.Fprintf(&b, "INSERT INTO branches VALUES (%d, '%s Central Library', '%s');\n", i+1, c, c)
	}
	for i := 1; i <= 12; i++ {
		sup := "NULL"
		if i > 4 {
			sup = fmt.Sprint(1 + (i-1)%4)
		}
		fmt.Fprintf(&b, "INSERT INTO staff VALUES (%d, 'staff%d@library.example', '%s', '%s', %d, %s);\n", i, i, first[(i*5)%len(first)], last[(i*7)%len(last)], 1+i%4, sup)
	}
	for i := 1; i <= 90; i++ {
		ref := "NULL"
		if i%4 == 0 {
			ref = fmt.Sprint(i/4 + 50) // refers to a member listed later
		}
		f, l := first[i%len(first)], last[(i/3)%len(last)]
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, '%s.%s%d@example.org', '%s', '%s', '2023-%02d-%02d', %s, '%s');\n",
			i, strings.ToLower(f), strings.ToLower(l), i, f, l, 1+i%12, 1+i%28, ref, []string{"active", "active", "suspended", "closed"}[i%4])
	}
	titles := []string{"The Silent Harbor", "Maps of Kraków", "A Grammar of Rain", "Night Trains", "The Salt Road", "Stone and Lantern",
		"Counting Rivers", "The Orchard Year", "Paper Moons", "Small Hours", "North of Nowhere", "The Glass Atlas"}
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "INSERT INTO \"book titles\" VALUES ('978-1-%05d-%d', '%s, vol. %d', '%s %s', %d);\n", i*37, i%10, titles[i%len(titles)], 1+i/len(titles), first[(i*3)%len(first)], last[(i*5)%len(last)], 1950+i)
	}
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "INSERT INTO copies VALUES (%d, 'LIB-%06d', '978-1-%05d-%d', %d);\n", i, 100000+i*7, (1+i%60)*37, (1+i%60)%10, 1+i%4)
	}
	for i := 1; i <= 200; i++ {
		ret := fmt.Sprintf("'2024-%02d-%02d'", 2+i%10, 1+(i*3)%27)
		if i%3 == 0 {
			ret = "NULL"
		}
		fmt.Fprintf(&b, "INSERT INTO loans (id, copy_id, member_id, checked_out_by, loaned_on, due_on, returned_on, fee_cents) VALUES (%d, %d, %d, %d, '2024-%02d-%02d', '2024-%02d-%02d', %s, %d);\n",
			i, 1+(i*13)%150, 1+(i*7)%90, 1+i%12, 1+i%10, 1+(i*3)%27, 2+i%10, 1+(i*3)%27, ret, (i%5)*50)
		fmt.Fprintf(&b, "INSERT INTO audit_log VALUES ('2024-%02d-%02d', 'checkout', %d);\n", 1+i%10, 1+(i*3)%27, i)
	}
	for i, h := range []string{"New Year", "Spring Day", "Library Day", "Midsummer", "Harvest", "Winter Break"} {
		fmt.Fprintf(&b, "INSERT INTO holidays VALUES ('2024-%02d-01', '%s');\n", 1+2*i, h)
	}
	return b.String()
}()

// hierarchySQL is a deep hierarchy: eight levels of places, each level
// referring to the one above, and a category tree in one table.
func hierarchySQL() string {
	levels := []string{"continents", "countries", "provinces", "cities", "districts", "streets", "buildings", "units"}
	var b strings.Builder
	for i, lv := range levels {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(", %s_id INTEGER NOT NULL REFERENCES %s(id)", strings.TrimSuffix(strings.TrimSuffix(levels[i-1], "s"), "ie")+map[bool]string{true: "y", false: ""}[strings.HasSuffix(levels[i-1], "ies")], levels[i-1])
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL%s);\n", lv, parent)
	}
	b.WriteString("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES categories(id));\n")
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo"}
	n := 1
	for i, lv := range levels {
		count := 3 << i // 3, 6, 12, ... 384
		if count > 200 {
			count = 200
		}
		for j := 1; j <= count; j++ {
			name := strings.ToUpper(syl[j%8][:1]) + syl[j%8][1:] + syl[(j/8)%8] + syl[i]
			if i == 0 {
				fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, '%s-%03d', '%s');\n", lv, j, strings.ToUpper(lv[:2]), j, name)
			} else {
				prev := 3 << (i - 1)
				if prev > 200 {
					prev = 200
				}
				fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, '%s-%03d', '%s', %d);\n", lv, j, strings.ToUpper(lv[:2]), j, name, 1+(j-1)%prev)
			}
			n++
		}
	}
	for j := 1; j <= 40; j++ {
		parent := "NULL"
		if j > 4 {
			parent = fmt.Sprint(j / 4)
		}
		fmt.Fprintf(&b, "INSERT INTO categories VALUES (%d, 'Category %s%s', %s);\n", j, strings.ToUpper(syl[j%8]), syl[(j/8)%8], parent)
	}
	return b.String()
}
