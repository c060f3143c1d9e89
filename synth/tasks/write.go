package tasks

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

var (
	updateTemplates = []string{"Please change the %s of %s to %s.", "Set the %s of %s to %s.", "The %s of %s should be %s; please update it."}
	deleteTemplates = []string{"Please delete %s.", "Remove %s; it is no longer needed."}
	createTemplates = []string{"Add a new %s to %s with %s.", "Please record a new %s for %s: %s."}
)

// finishWrite ends with a change to cur (update or delete) or a new row
// referring to it (create).
func (w *walker) finishWrite(c *chain, cur *entity) (envpkg.Task, string, error) {
	order := []string{"update", "update", "delete", "create"}
	w.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, k := range order {
		var t envpkg.Task
		var err error
		switch k {
		case "update":
			t, err = w.update(c, cur)
		case "delete":
			t, err = w.delete(c, cur)
		case "create":
			t, err = w.create(c, cur)
		}
		if err == nil {
			return t, k, nil
		}
		if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	}
	return envpkg.Task{}, "", errDeadEnd
}

// newValue proposes a different value for a column, or nil.
func (w *walker) newValue(col *dbmodel.Column, old any) any {
	o := sqlValue(old)
	switch {
	case col.Bool:
		return o != int64(1)
	case len(col.Enum) > 1:
		for range 4 {
			if v := col.Enum[w.rng.IntN(len(col.Enum))]; v != fmt.Sprint(o) {
				return v
			}
		}
	case col.Kind == dbmodel.Integer:
		if n, ok := o.(int64); ok {
			return n + 1 + w.rng.Int64N(5)
		}
	case col.Kind == dbmodel.Real:
		if f, ok := o.(float64); ok {
			return float64(int64(f*100)+int64(100+w.rng.IntN(900))) / 100
		}
		if n, ok := o.(int64); ok {
			return float64(n) + 1.5
		}
	}
	return nil
}

func (w *walker) update(c *chain, cur *entity) (envpkg.Task, error) {
	tool := w.toolFor(toolgen.Update, cur.table.Name)
	if tool == nil {
		return envpkg.Task{}, errDeadEnd
	}
	args, ok := keyArgs(tool, cur.row)
	if !ok {
		return envpkg.Task{}, errDeadEnd
	}
	var params []toolgen.Param
	for _, p := range tool.Params {
		col := cur.table.Column(p.Column)
		if p.Op == toolgen.OpSet && col != nil && !col.Unique && cur.table.ForeignKeyOf(col.Name) == nil && !cur.table.IsNatural(col.Name) {
			params = append(params, p)
		}
	}
	w.rng.Shuffle(len(params), func(i, j int) { params[i], params[j] = params[j], params[i] })
	for _, p := range params {
		col := cur.table.Column(p.Column)
		nv := w.newValue(col, cur.row[col.Name])
		if nv == nil {
			continue
		}
		args[p.Name] = nv
		if _, err := w.call(c, tool.Name, args); err != nil {
			delete(args, p.Name)
			if errors.Is(err, errDeadEnd) {
				continue
			}
			return envpkg.Task{}, err
		}
		stored := sqlValue(nv)
		if b, ok := nv.(bool); ok {
			stored = map[bool]int64{false: 0, true: 1}[b]
		}
		ch := change{table: cur.table, kind: "update", row: cur.row, cols: map[string]any{col.Name: stored},
			name: fmt.Sprintf("%s set to %s", dbmodel.Words(col.Name), show(nv))}
		checks, err := w.writeChecks(ch)
		if err != nil {
			return envpkg.Task{}, err
		}
		tmpl := updateTemplates[w.rng.IntN(len(updateTemplates))]
		shown := show(nv)
		if b, ok := nv.(bool); ok {
			shown = map[bool]string{true: "yes", false: "no"}[b]
		}
		return envpkg.Task{Instruction: fmt.Sprintf(tmpl, dbmodel.Words(col.Name), cur.desc, shown), Checks: checks}, nil
	}
	return envpkg.Task{}, errDeadEnd
}

func (w *walker) delete(c *chain, cur *entity) (envpkg.Task, error) {
	tool := w.toolFor(toolgen.Delete, cur.table.Name)
	if tool == nil || len(c.entities) < 2 && w.rng.IntN(2) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	args, ok := keyArgs(tool, cur.row)
	if !ok {
		return envpkg.Task{}, errDeadEnd
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	checks, err := w.writeChecks(change{table: cur.table, kind: "delete", row: cur.row, name: "the " + dbmodel.Words(cur.table.Singular()) + " is gone"})
	if err != nil {
		return envpkg.Task{}, err
	}
	tmpl := deleteTemplates[w.rng.IntN(len(deleteTemplates))]
	return envpkg.Task{Instruction: capitalize(fmt.Sprintf(tmpl, cur.desc)), Checks: checks}, nil
}

// create adds a row referring to cur, copying the other values from an
// existing row of the same table (only for tables whose key SQLite assigns
// and without other unique columns, so the copy cannot collide).
func (w *walker) create(c *chain, cur *entity) (envpkg.Task, error) {
	var opts []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind != toolgen.Children || t.Parent != cur.table.Name {
			continue
		}
		child := w.spec.Model.Table(t.Table)
		if len(child.PrimaryKey) == 1 && child.Column(child.PrimaryKey[0]).Generated && len(child.Uniques) == 0 && w.toolFor(toolgen.Create, child.Name) != nil && child.Rows > 0 {
			unique := false
			for _, col := range child.Columns {
				unique = unique || col.Unique
			}
			if !unique {
				opts = append(opts, t)
			}
		}
	}
	if len(opts) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	via := opts[w.rng.IntN(len(opts))]
	child := w.spec.Model.Table(via.Table)
	tool := w.toolFor(toolgen.Create, child.Name)
	// A template row.
	stmt, _, err := w.src.Prepare("SELECT * FROM " + dbmodel.Quote(child.Name) + " LIMIT 1 OFFSET ?")
	if err != nil {
		return envpkg.Task{}, err
	}
	stmt.BindInt64(1, w.rng.Int64N(child.Rows))
	tmpl := map[string]any{}
	if stmt.Step() {
		for i := range stmt.ColumnCount() {
			tmpl[stmt.ColumnName(i)] = dbmodel.ColumnValue(stmt, i)
		}
	}
	stmt.Close()
	if len(tmpl) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	fkCol := via.Via.Columns[0]
	tmpl[fkCol] = sqlValue(cur.row[via.Via.RefColumns[0]])
	args := map[string]any{}
	var said []string
	vals := map[string]any{}
	for _, p := range tool.Params {
		v := tmpl[p.Column]
		if v == nil {
			if p.Required {
				return envpkg.Task{}, errDeadEnd
			}
			continue
		}
		if _, isBlob := v.([]byte); isBlob {
			return envpkg.Task{}, errDeadEnd
		}
		args[p.Name] = argValue(v, p.Type)
		vals[p.Column] = v
		if p.Column != fkCol {
			if w.spec.Model.Table(child.Name).ForeignKeyOf(p.Column) != nil {
				return envpkg.Task{}, errDeadEnd // another reference: the user would have to name it by id
			}
			said = append(said, dbmodel.Words(p.Column)+" "+showCol(child.Column(p.Column), v))
		}
	}
	sort.Strings(said)
	if len(said) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	checks, err := w.writeChecks(change{table: child, kind: "create", cols: vals, name: "the new " + dbmodel.Words(child.Singular()) + " exists"})
	if err != nil {
		return envpkg.Task{}, err
	}
	t := createTemplates[w.rng.IntN(len(createTemplates))]
	return envpkg.Task{Instruction: fmt.Sprintf(t, dbmodel.Words(child.Singular()), cur.desc, strings.Join(said, ", ")), Checks: checks}, nil
}

// writeChecks are the checks of the changes the chain just made: the
// tables the ground truth changed besides the changed ones are the
// database's own doing (triggers), allowed to differ.
func (w *walker) writeChecks(changes ...change) ([]envpkg.Check, error) {
	d, err := w.ep.Diff()
	if err != nil {
		return nil, err
	}
	var allowed []string
	for name := range d {
		named := false
		for _, c := range changes {
			named = named || c.table.Name == name
		}
		if !named && w.spec.Model.Table(name) != nil {
			allowed = append(allowed, name)
		}
	}
	sort.Strings(allowed)
	return writeChecks(w.spec.Model, changes, allowed), nil
}
