package dbmodel

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Keys and references a database does not declare, recovered from names
// and data. A table imported from CSV declares nothing: its "id" column is
// its key all the same, and its "customer_id" refers to the customers. Each
// recovery needs both a name that says so and data that makes it certain
// (a key: a value on every row, no two alike; a reference: every value
// found in the parent's key), and is reported in Model.Skipped.

// recoverKeys gives a table with no declared key the one column whose
// name says it is the key (id, <table>_id, <table>_code, ...) and whose
// data makes it one: set on every row, no two rows alike.
func recoverKeys(m *Model) {
	for _, t := range m.Tables {
		if !t.RowID || t.Rows < 2 {
			continue
		}
		var best *Column
		bestRank, tie := 0, false
		for _, c := range t.Columns {
			if c.Name == RowIDColumn || c.Computed != 0 || c.Kind != Integer && c.Kind != Text || c.Nulls != 0 || c.Distinct != t.Rows {
				continue
			}
			r := keyNameRank(t.Name, c.Name)
			switch {
			case r == 0:
			case r > bestRank:
				best, bestRank, tie = c, r, false
			case r == bestRank:
				tie = true
			}
		}
		if best == nil || tie {
			continue
		}
		t.Columns = t.Columns[1:] // the row_id column readTable added
		t.RowID = false
		t.PrimaryKey = []string{best.Name}
		best.PK, best.NotNull = 1, true
		best.Generated = strings.EqualFold(best.DeclType, "INTEGER") && !t.WithoutRowID
		m.skip("table %s: no declared key; %s is set and unique on all %d rows and named as its key, so it is the key", t.Name, best.Name, t.Rows)
	}
}

// keyNameRank says how surely a column's name makes it its table's key:
// 2 for "id" or the table's name with id ("CustomerID" in customers), 1
// for code or key, alone or after the table's name, or the table's name
// with number, 0 otherwise.
func keyNameRank(table, col string) int {
	n := squash(col)
	tn, sing := squash(table), squash(Singular(table))
	switch n {
	case "id", tn + "id", sing + "id":
		return 2
	case "code", "key", tn + "code", sing + "code", tn + "key", sing + "key", sing + "no", sing + "number":
		return 1
	}
	return 0
}

// squash lower-cases a name and drops its separators: "Customer_ID",
// "customer id" and "customerid" are one name.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != '_' && r != ' ' && r != '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// target is a column other rows may refer to: a one-column primary key, or
// a column unique in the data whose name or declaration says it identifies.
type target struct {
	t   *Table
	col *Column
}

// targets lists the columns of m that an undeclared reference may point
// to.
func targets(m *Model) []target {
	var out []target
	for _, p := range m.Tables {
		if len(p.PrimaryKey) == 1 && !p.RowID {
			out = append(out, target{p, p.Column(p.PrimaryKey[0])})
		}
		for _, c := range p.Columns {
			if p.IsKey(c.Name) || c.Kind != Text && c.Kind != Integer || c.Nulls != 0 || p.Rows < 2 {
				continue
			}
			if c.Unique || c.Distinct == p.Rows && keyNameRank(p.Name, c.Name) > 0 {
				out = append(out, target{p, c})
			}
		}
	}
	return out
}

// inferForeignKeys adds the references that names say and data confirm:
// every non-NULL value of the column is a key of the parent. When names
// point to several parents that all hold the values, the best-named one
// wins; a tie is left undecided (and said in Model.Skipped) rather than
// guessed.
func inferForeignKeys(conn *sqlite3.Conn, m *Model) error {
	all := targets(m)
	for _, t := range m.Tables {
		for _, c := range t.Columns {
			single := t.IsKey(c.Name) && len(t.PrimaryKey) == 1
			if t.ForeignKeyOf(c.Name) != nil || c.Kind == Real || c.Kind == Blob || c.Bool || c.Name == RowIDColumn && t.RowID {
				continue
			}
			var found []ForeignKey
			bestScore := 0
			for _, p := range all {
				// A table's own key refers to another only when it is
				// named for that table (the 1:1 extension: person_id
				// in employees), never by merely sharing its name.
				score, reason := nameMatch(m, c.Name, t, p.t, p.col.Name, !single)
				if score == 0 || score < bestScore || single && score != scoreNamesTable {
					continue
				}
				if p.col.Kind != c.Kind && c.Kind != Text && p.col.Kind != Text {
					continue
				}
				ok, n, err := valuesContained(conn, t.Name, c.Name, p.t.Name, p.col.Name)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				fk := ForeignKey{Columns: []string{c.Name}, RefTable: p.t.Name, RefColumns: []string{p.col.Name}, Inferred: true,
					Reason: fmt.Sprintf("%s; all %d values found in %s.%s", reason, n, p.t.Name, p.col.Name)}
				if score > bestScore {
					found, bestScore = nil, score
				}
				found = append(found, fk)
			}
			switch {
			case len(found) == 1:
				t.ForeignKeys = append(t.ForeignKeys, found[0])
			case len(found) > 1 && !sameParent(found):
				var to []string
				for _, f := range found {
					to = append(to, f.RefTable+"."+f.RefColumns[0])
				}
				m.skip("%s.%s: its name and values fit %s alike; no reference inferred", t.Name, c.Name, strings.Join(to, " and "))
			case len(found) > 1:
				t.ForeignKeys = append(t.ForeignKeys, found[0]) // the key and a unique column of one parent: the key
			}
		}
	}
	return nil
}

func sameParent(fks []ForeignKey) bool {
	for _, f := range fks[1:] {
		if f.RefTable != fks[0].RefTable {
			return false
		}
	}
	return true
}

// How surely a column's name says which table it refers to.
const (
	scorePerson      = 1 // user_id, and the only table of people is members
	scoreRole        = 2 // home_team_id refers to teams
	scoreNamesTable  = 3 // customer_id, CustomerID, customer_code refer to customers
	scoreSameKeyName = 4 // artist_id is the key of artists under that name
)

// nameMatch scores why column col of t could refer to column pk of p, with
// the reason; 0 when its name does not say so. sameName: sharing the name
// of p's key counts.
func nameMatch(m *Model, col string, t, p *Table, pk string, sameName bool) (int, string) {
	if p == t {
		return 0, "" // self references need a declaration (parent_id → which table?)
	}
	base := refBase(col)
	pn, ps := squash(p.Name), squash(Singular(p.Name))
	namesTable := base != "" && (squash(base) == pn || squash(base) == ps)
	if sameName && strings.EqualFold(col, pk) && p.IsKey(pk) && squash(pk) != "id" && squash(pk) != "code" && squash(pk) != "key" {
		if namesTable {
			// item_id is the key of items and of item_notes, and names items.
			return scoreSameKeyName + 1, fmt.Sprintf("same name as %s.%s, and names the table", p.Name, pk)
		}
		return scoreSameKeyName, fmt.Sprintf("same name as %s.%s", p.Name, pk)
	}
	if base == "" {
		return 0, ""
	}
	if namesTable {
		return scoreNamesTable, fmt.Sprintf("%s names table %s", col, p.Name)
	}
	// A role before the table's name: home_team_id, origin_airport_code.
	lb := strings.ToLower(base)
	for _, sep := range []string{"_", " "} {
		if i := strings.LastIndex(lb, sep); i > 0 {
			if last := squash(lb[i+1:]); last != "" && (last == pn || last == ps) {
				return scoreRole, fmt.Sprintf("%s names table %s in a role", col, p.Name)
			}
		}
	}
	// user_id when the people are called members: a column named for a
	// person refers to the database's only table of people.
	if personWord(squash(base)) && personWord(strings.ToLower(Singular(p.Name))) && onlyPeople(m, p) {
		return scorePerson, fmt.Sprintf("%s names a person and %s is the only table of people", col, p.Name)
	}
	return 0, ""
}

// refBase is what a reference column is named for: customer_id and
// CustomerID → customer, country_code → country; "" for a name without
// such an ending.
func refBase(col string) string {
	lc := strings.ToLower(col)
	for _, suf := range []string{"_id", " id", "id", "_code", "_key", "_no", "_fk"} {
		if strings.HasSuffix(lc, suf) && len(lc) > len(suf) {
			return strings.TrimRight(col[:len(col)-len(suf)], "_ ")
		}
	}
	return ""
}
