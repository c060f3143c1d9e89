package tasks

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A row of a link table (a playlist's track, a film's category, an
// employee's territory) is what a person adds or removes by naming the two
// things it links: "Please add the track "Badge" to the playlist
// "Grunge"", "Could you take the film "ACE GOLDFINGER" out of the
// category "Horror"?", never "create a playlist track with ..." or "the
// only film category of the film X should go".

// pureLink: t holds nothing but its two references and bookkeeping
// stamps (film_category), unlike an order's line, which has a quantity
// and a price the user would have to give.
func pureLink(t *dbmodel.Table) bool {
	for _, c := range t.Columns {
		if t.ForeignKeyOf(c.Name) == nil && !bookkeeping(c.Name) {
			return false
		}
	}
	return true
}

// container orders the two rows a link joins as a person says it: the
// one the link table is named for first holds the other ("add the track
// to the playlist" for playlist_track, "add the actor to the film" for
// film_actor). It returns (what is added, what it is added to).
func container(link, a, b *dbmodel.Table, aDesc, bDesc string) (string, string) {
	if strings.HasPrefix(words(link.Name), words(b.Singular())) && !strings.HasPrefix(words(link.Name), words(a.Singular())) {
		return aDesc, bDesc
	}
	return bDesc, aDesc
}

// otherRef is the reference of a link table t other than fkCol, with the
// table it leads to (nil when t is no link table).
func otherRef(m *dbmodel.Model, t *dbmodel.Table, fkCol string) (*dbmodel.ForeignKey, *dbmodel.Table) {
	if linked(t, fkCol) == "" {
		return nil, nil
	}
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		if len(fk.Columns) == 1 && fk.Columns[0] != fkCol {
			return fk, m.Table(fk.RefTable)
		}
	}
	return nil, nil
}

// nameOf describes the row of t whose key is key by its first natural
// key, with the tool that finds it by that key ("", nil when it has none).
func (w *walker) nameOf(t *dbmodel.Table, key any) (string, any, *toolgen.Tool, error) {
	if t == nil || len(t.PrimaryKey) != 1 {
		return "", nil, nil, nil
	}
	for _, nk := range t.NaturalKeys {
		if unnatural(nk) {
			continue
		}
		for _, tl := range w.spec.Tools {
			if tl.Table != t.Name || !(tl.Kind == toolgen.Find || tl.Kind == toolgen.Get && len(tl.Params) == 1) || tl.Params[0].Column != nk {
				continue
			}
			v, err := w.sample(fmt.Sprintf(`SELECT %s FROM %s WHERE %s = ? LIMIT 1 OFFSET ?`, dbmodel.Quote(nk), dbmodel.Quote(t.Name), dbmodel.Quote(t.PrimaryKey[0])), 1, sqlValue(key))
			if err != nil || v == nil || !sayable(v) {
				return "", nil, nil, err
			}
			return keyDesc(t, nk, v), v, tl, nil
		}
	}
	return "", nil, nil, nil
}

// link adds a row to a link table between cur and a row of the other
// table it links that cur is not linked to yet, found by its name.
func (w *walker) link(c *chain, cur *entity) (envpkg.Task, error) {
	m := w.spec.Model
	var opts []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == cur.table.Name && w.toolFor(toolgen.Create, t.Table) != nil {
			if fk, _ := otherRef(m, m.Table(t.Table), t.Via.Columns[0]); fk != nil && !ledger(m.Table(t.Table)) && pureLink(m.Table(t.Table)) {
				opts = append(opts, t)
			}
		}
	}
	if len(opts) == 0 || cur.desc == "me" {
		return envpkg.Task{}, errDeadEnd
	}
	via := opts[w.rng.IntN(len(opts))]
	child := m.Table(via.Table)
	fkCol := via.Via.Columns[0]
	fk, other := otherRef(m, child, fkCol)
	if other == nil || len(other.PrimaryKey) != 1 || other.Rows < 2 || cur.parent != nil && (cur.parent.table == other || cur.parent.table == child) {
		// (Not from a row of the other table: "add the only category of
		// the film X to the film Y".)
		return envpkg.Task{}, errDeadEnd
	}
	curKey := sqlValue(cur.row[via.Via.RefColumns[0]])
	// A row of the other table that cur is not linked to yet.
	ok, oc, q := dbmodel.Quote(other.PrimaryKey[0]), dbmodel.Quote(fk.Columns[0]), dbmodel.Quote
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s NOT IN (SELECT %s FROM %s WHERE %s = ? AND %s IS NOT NULL)`, q(other.Name), ok, oc, q(child.Name), q(fkCol), oc), curKey)
	if err != nil || n == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	otherKey, err := w.sample(fmt.Sprintf(`SELECT %s FROM %s WHERE %s NOT IN (SELECT %s FROM %s WHERE %s = ? AND %s IS NOT NULL) LIMIT 1 OFFSET ?`, ok, q(other.Name), ok, oc, q(child.Name), q(fkCol), oc), n, curKey)
	if err != nil {
		return envpkg.Task{}, err
	}
	desc, name, find, err := w.nameOf(other, otherKey)
	if err != nil || find == nil {
		return envpkg.Task{}, errDeadEnd
	}
	tool := w.toolFor(toolgen.Create, child.Name)
	args := map[string]any{}
	vals := map[string]any{}
	for _, p := range tool.Params {
		switch p.Column {
		case fkCol:
			args[p.Name], vals[p.Column] = argValue(curKey, p.Type), curKey
		case fk.Columns[0]:
			args[p.Name], vals[p.Column] = argValue(otherKey, p.Type), sqlValue(otherKey)
		default:
			if !p.Required {
				continue
			}
			if !bookkeeping(p.Column) {
				return envpkg.Task{}, errDeadEnd // something else the user would have to say
			}
			// A stamp the application sets (last_update): the ground
			// truth takes an existing row's; the check does not hold the
			// agent to it.
			v, err := w.sample(fmt.Sprintf(`SELECT %s FROM %s LIMIT 1 OFFSET ?`, q(p.Column), q(child.Name)), 1)
			if err != nil {
				return envpkg.Task{}, errDeadEnd
			}
			args[p.Name] = argValue(v, p.Type)
		}
	}
	if _, err := w.call(c, find.Name, map[string]any{find.Params[0].Name: argValue(name, find.Params[0].Type)}); err != nil {
		return envpkg.Task{}, err
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	checks, err := w.writeChecks(change{table: child, kind: "create", cols: vals, name: desc + " is linked"})
	if err != nil {
		return envpkg.Task{}, err
	}
	what, to := container(child, cur.table, other, cur.desc, desc)
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Please add %s to %s.", what, to),
		fmt.Sprintf("Could you add %s to %s?", what, to)),
		Checks: checks}, nil
}

// unlinkWords phrases deleting the link row cur (reached from its parent)
// as taking the other row out: "take the film "X" out of the category
// "Horror"". "" when cur is no link row or the other row has no name.
func (w *walker) unlinkWords(cur *entity) (string, error) {
	if cur.parent == nil || cur.parent.desc == "me" || cur.parent.table == nil {
		return "", nil
	}
	var fkCol string
	for _, fk := range cur.table.ForeignKeys {
		if len(fk.Columns) == 1 && fk.RefTable == cur.parent.table.Name {
			fkCol = fk.Columns[0]
		}
	}
	fk, other := otherRef(w.spec.Model, cur.table, fkCol)
	if fk == nil || other == nil {
		return "", nil
	}
	desc, _, find, err := w.nameOf(other, sqlValue(cur.row[fk.Columns[0]]))
	if err != nil || find == nil {
		return "", err
	}
	what, from := container(cur.table, cur.parent.table, other, cur.parent.desc, desc)
	return oneOf(w.rng,
		fmt.Sprintf("Please take %s out of %s.", what, from),
		fmt.Sprintf("Could you remove %s from %s?", what, from)), nil
}
