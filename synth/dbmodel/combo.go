package dbmodel

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// comboCandidates bounds the columns tried in pairs (pairs grow as the
// square).
const comboCandidates = 8

// chooseComboKey finds, for a table no single column names (a keyless
// table of readings, people without a unique name), two columns a person
// would say that together tell every row apart ("Oslo" on "2024-01-03",
// "Robin" in grade 9): set on every row, sayable, not free text, at most
// one of them a small number. The first such pair in table order wins; a
// text column first.
func chooseComboKey(conn *sqlite3.Conn, t *Table) error {
	if len(t.NaturalKeys) > 0 || t.Rows < 2 {
		return nil
	}
	var cands []*Column
	for _, c := range t.Columns {
		if c.Kind != Text && !smallNumber(t, c) || c.Nulls != 0 || c.ByMachine() || freeTextName(c.Name) || t.IsKey(c.Name) && (t.RowID || len(t.PrimaryKey) == 1) ||
			t.ForeignKeyOf(c.Name) != nil || c.Distinct < 2 {
			continue
		}
		cands = append(cands, c)
		if len(cands) == comboCandidates {
			break
		}
	}
	for i, a := range cands {
		for _, b := range cands[i+1:] {
			if a.TimeLayout != "" && b.TimeLayout != "" {
				continue // two dates name no row a person knows
			}
			if a.Kind != Text && b.Kind != Text {
				continue // two numbers name nothing; a number goes beside a name
			}
			rows, err := queryRows(conn, fmt.Sprintf(`SELECT COUNT(*) FROM (SELECT DISTINCT %s, %s FROM %s)`, quote(a.Name), quote(b.Name), quote(t.Name)))
			if err != nil {
				return err
			}
			if asInt(rows[0][0]) == t.Rows {
				first, second := a, b
				if first.TimeLayout != "" || first.Kind != Text {
					first, second = b, a
				}
				t.ComboKey = []string{first.Name, second.Name}
				if t.Label == "" {
					t.Label = first.Name
				}
				return nil
			}
		}
	}
	return nil
}

// WhyNoStart says in one line why no row of m can be named by what a
// person knows, or "" when some can: the reason a database gives no task.
func WhyNoStart(m *Model) string {
	rows := int64(0)
	for _, t := range m.Tables {
		rows += t.Rows
		if t.Rows > 0 && (len(t.NaturalKeys) > 0 || len(t.ComboKey) > 0) {
			return ""
		}
	}
	if rows == 0 {
		return "every table is empty: there is no row to ask about or change"
	}
	var names []string
	for _, t := range m.Tables {
		if t.Rows > 0 {
			names = append(names, t.Name)
		}
	}
	return fmt.Sprintf("no row of %s can be named by what a person knows: no column unique in the data that is a name, email, code or number, and no two columns that together tell the rows apart",
		strings.Join(names, ", "))
}

// smallNumbers bounds the distinct values of a number said beside a name:
// a grade, a level, a seat row ("Robin in grade 9"), not a measurement.
const smallNumbers = 20

// smallNumber: an integer column with few values that is no key, flag,
// date or machine value, which a person says to tell two rows of the same
// name apart.
func smallNumber(t *Table, c *Column) bool {
	return c.Kind == Integer && !c.Bool && c.Enum == nil && c.Distinct <= smallNumbers && c.TimeLayout == "" && !dateName(c.Name) && !t.IsKey(c.Name)
}
