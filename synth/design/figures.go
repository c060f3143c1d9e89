package design

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// FiguresAnswer names, for one table, its measures (number columns whose
// values add up across rows) and its groups (columns a person selects
// rows by). Which numbers add up and what a person selects by is a
// judgement no word list makes for every database: the model says it,
// the schema and the rows check it (validateFigures), and the task
// generator asks totals, differences, averages, the largest and
// comparisons over them (synth/tasks, grouped.go).
type FiguresAnswer struct {
	Table    string   `json:"table"`
	Measures []string `json:"measures"`
	Groups   []string `json:"groups"`
}

// figuresOf prefixes the name under which a table's figures are dropped.
const figuresOf = "figures of "

// validateFigures checks one table's figures against the schema and the
// rows: a measure is a number column, no key, no reference, no yes/no
// flag, with more than one value in the data; a group is a column that is
// not the table's one-column key, whose values repeat (some value is held
// by two rows or more) and differ (more than one value). A column named
// twice, or both a measure and a group, is a fault too. The error names
// every column that fails, for the repair prompt.
func validateFigures(m *dbmodel.Model, conn *sqlite3.Conn, fa FiguresAnswer) (*toolgen.Figures, error) {
	t := m.Table(fa.Table)
	if t == nil {
		return nil, fmt.Errorf("no table %q", fa.Table)
	}
	if len(fa.Measures) == 0 || len(fa.Groups) == 0 {
		return nil, fmt.Errorf("name at least one measure and one group of %s (or leave the table out)", fa.Table)
	}
	if len(fa.Measures) > maxFigures || len(fa.Groups) > maxFigures {
		return nil, fmt.Errorf("name at most %d measures and %d groups of %s", maxFigures, maxFigures, fa.Table)
	}
	f := &toolgen.Figures{Table: t.Name, By: toolgen.FiguresByDesign}
	seen := map[string]bool{}
	for _, name := range fa.Measures {
		c := t.Column(name)
		switch {
		case c == nil:
			return nil, fmt.Errorf("measure %q: %s has no such column", name, fa.Table)
		case seen[name]:
			return nil, fmt.Errorf("measure %q is named twice", name)
		case c.Kind != dbmodel.Integer && c.Kind != dbmodel.Real || c.Bool:
			return nil, fmt.Errorf("measure %q is not a number column", name)
		case t.IsKey(name) || t.ForeignKeyOf(name) != nil || len(c.ReferencedBy) > 0:
			return nil, fmt.Errorf("measure %q is a key or a reference, not an amount", name)
		}
		n, err := distinctCount(conn, t, name)
		if err != nil {
			return nil, err
		}
		if n < 2 {
			return nil, fmt.Errorf("measure %q holds one value in every row: nothing to add up or compare", name)
		}
		seen[name] = true
		f.Measures = append(f.Measures, name)
	}
	for _, name := range fa.Groups {
		c := t.Column(name)
		switch {
		case c == nil:
			return nil, fmt.Errorf("group %q: %s has no such column", name, fa.Table)
		case seen[name]:
			return nil, fmt.Errorf("group %q is named twice, or is a measure too", name)
		case c.Kind == dbmodel.Blob || len(t.PrimaryKey) == 1 && t.IsKey(name):
			return nil, fmt.Errorf("group %q is the key or a binary column: no two rows share a value", name)
		}
		n, err := distinctCount(conn, t, name)
		if err != nil {
			return nil, err
		}
		shared, err := count(conn, "SELECT count(*) FROM (SELECT 1 FROM "+dbmodel.Quote(t.Name)+" WHERE "+dbmodel.Quote(name)+" IS NOT NULL GROUP BY "+dbmodel.Quote(name)+" HAVING count(*) >= 2)")
		if err != nil {
			return nil, err
		}
		if n < 2 || shared == 0 {
			return nil, fmt.Errorf("group %q: want a column whose values repeat across rows and differ (it holds %d distinct values, %d of them on two rows or more)", name, n, shared)
		}
		seen[name] = true
		f.Groups = append(f.Groups, name)
	}
	return f, nil
}

// maxFigures bounds the measures and the groups of one table.
const maxFigures = 6

// distinctCount counts the distinct non-null values of col.
func distinctCount(conn *sqlite3.Conn, t *dbmodel.Table, col string) (int64, error) {
	return count(conn, "SELECT count(DISTINCT "+dbmodel.Quote(col)+") FROM "+dbmodel.Quote(t.Name))
}

// addFigures validates the answer's figures into p: a table's figures
// that fail are dropped with the reason (and sent back for repair, as an
// action is); a table named twice keeps its first.
func (p *Plan) addFigures(m *dbmodel.Model, conn *sqlite3.Conn, figs []FiguresAnswer) error {
	for _, fa := range figs {
		if slices.ContainsFunc(p.Figures, func(f toolgen.Figures) bool { return f.Table == fa.Table }) {
			p.Dropped = append(p.Dropped, Dropped{figuresOf + fa.Table, "the table is named twice in \"figures\""})
			continue
		}
		f, err := validateFigures(m, conn, fa)
		if err != nil {
			var se *sqlite3.Error
			if errors.As(err, &se) {
				return err // the database, not the answer
			}
			p.Dropped = append(p.Dropped, Dropped{figuresOf + fa.Table, err.Error()})
			continue
		}
		p.Figures = append(p.Figures, *f)
	}
	return nil
}
