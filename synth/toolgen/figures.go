package toolgen

import (
	"slices"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Figures say, for one table, which numbers add up across its rows
// (Measures: goals, amounts, quantities) and which columns a person
// selects its rows by (Groups: a season, a team, a country). They are a
// judgement about the data, so they come from the design (synth/design,
// By FiguresByDesign); without a model only what the schema makes
// certain is one (SchemaFigures, By FiguresBySchema): declared references
// and CHECK-declared closed sets as groups, and no measure.
type Figures struct {
	Table    string   `json:"table"`
	Measures []string `json:"measures,omitempty"`
	Groups   []string `json:"groups,omitempty"`
	By       string   `json:"by"`
}

// Where a Figures comes from.
const (
	FiguresByDesign = "design"
	FiguresBySchema = "schema"
)

// FiguresOf returns the figures of table, nil when none are named.
func (s *Spec) FiguresOf(table string) *Figures {
	if s == nil {
		return nil
	}
	for i := range s.Figures {
		if s.Figures[i].Table == table {
			return &s.Figures[i]
		}
	}
	return nil
}

// SchemaFigures are the groups the schema makes certain, per table: a
// declared (not recovered) one-column reference, and a text column whose
// closed set of values a CHECK declares. Measures are never certain from
// the schema alone (a number column may be a rate, a rank or a code), so
// none is named.
func SchemaFigures(m *dbmodel.Model) []Figures {
	var out []Figures
	for _, t := range m.Tables {
		var groups []string
		for _, fk := range t.ForeignKeys {
			if !fk.Inferred && len(fk.Columns) == 1 && !slices.Contains(groups, fk.Columns[0]) {
				groups = append(groups, fk.Columns[0])
			}
		}
		for _, c := range t.Columns {
			if len(c.Enum) > 1 && !c.EnumInferred && !t.IsKey(c.Name) && !slices.Contains(groups, c.Name) {
				groups = append(groups, c.Name)
			}
		}
		if len(groups) > 0 {
			out = append(out, Figures{Table: t.Name, Groups: groups, By: FiguresBySchema})
		}
	}
	return out
}

// isGroup: the figures name col of t as a group (its list tool filters
// it by an exact value).
func (g *gen) isGroup(t *dbmodel.Table, col string) bool {
	for _, f := range g.opts.Figures {
		if f.Table == t.Name && slices.Contains(f.Groups, col) {
			return true
		}
	}
	return false
}
