package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// entity is a row the chain has reached, with how a user would name it.
type entity struct {
	table *dbmodel.Table
	row   map[string]any // from the tool's JSON output (json.Number for numbers)
	desc  string         // "the customer whose email is ana@x.io"
	tool  string         // the call that produced it
}

// chain is one executed chain of calls.
type chain struct {
	calls    []envpkg.Call
	entities []*entity
	ids      []string // internal ids seen, which the instruction must not contain
}

// errDeadEnd means the walk could not continue (no rows to follow).
var errDeadEnd = errors.New("dead end")

type walker struct {
	spec *toolgen.Spec
	g    *graph.Graph
	src  *sqlite3.Conn
	ep   *runtime.Episode
	rng  *rand.Rand
	ctx  context.Context
}

// call runs a tool in the episode and decodes its JSON result.
func (w *walker) call(c *chain, name string, args map[string]any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := w.ep.Call(w.ctx, name, raw)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%w: %s: %s", errDeadEnd, name, res.Content)
	}
	c.calls = append(c.calls, envpkg.Call{Name: name, Arguments: raw})
	var v any
	d := json.NewDecoder(strings.NewReader(res.Content))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return res.Content, nil // a plain-text result (delete)
	}
	return v, nil
}

// entry starts a chain: a row of a table with a natural key, found by it.
func (w *walker) entry(c *chain) (*entity, error) {
	var tables []*dbmodel.Table
	for _, t := range w.spec.Model.Tables {
		if len(t.NaturalKeys) > 0 && t.Rows > 0 {
			tables = append(tables, t)
		}
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("%w: no table has a natural key", errDeadEnd)
	}
	t := tables[w.rng.IntN(len(tables))]
	nk := t.NaturalKeys[w.rng.IntN(len(t.NaturalKeys))]
	var tool *toolgen.Tool
	for _, tl := range w.spec.Tools {
		if (tl.Kind == toolgen.Find || tl.Kind == toolgen.Get && len(tl.Params) == 1) && tl.Table == t.Name && tl.Params[0].Column == nk {
			tool = tl
		}
	}
	if tool == nil {
		return nil, fmt.Errorf("%w: no find tool for %s.%s", errDeadEnd, t.Name, nk)
	}
	v, err := w.sample(fmt.Sprintf(`SELECT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL AND %[1]s <> '' LIMIT 1 OFFSET ?`, dbmodel.Quote(nk), dbmodel.Quote(t.Name)), t.Rows)
	if err != nil {
		return nil, err
	}
	out, err := w.call(c, tool.Name, map[string]any{tool.Params[0].Name: v})
	if err != nil {
		return nil, err
	}
	row, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s returned no row", errDeadEnd, tool.Name)
	}
	e := &entity{table: t, row: row, tool: tool.Name, desc: fmt.Sprintf("the %s whose %s is %s", dbmodel.Words(t.Singular()), dbmodel.Words(nk), show(v))}
	c.entities = append(c.entities, e)
	c.noteIDs(w, e)
	return e, nil
}

// sample returns the value of a one-column query at a random offset.
func (w *walker) sample(sql string, n int64) (any, error) {
	stmt, _, err := w.src.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	stmt.BindInt64(1, w.rng.Int64N(max(n, 1)))
	if !stmt.Step() {
		if err := stmt.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: no row sampled", errDeadEnd)
	}
	return dbmodel.ColumnValue(stmt, 0), nil
}

// hop follows one reference from cur, choosing among the strong edges of
// the graph whose tools need only what cur provides.
func (w *walker) hop(c *chain, cur *entity) (*entity, error) {
	type cand struct {
		tool   *toolgen.Tool
		weight int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, e := range w.g.Out(cur.tool) {
		t := w.spec.Tool(e.To)
		if e.Strength != graph.Strong || seen[e.To] || t == nil {
			continue
		}
		switch {
		case t.Kind == toolgen.Children && t.Parent == cur.table.Name && !c.visited(t.Table):
			seen[e.To] = true
			cands = append(cands, cand{t, 3})
		case t.Kind == toolgen.Parent && t.Parent == cur.table.Name && cur.row[t.Via.Columns[0]] != nil && !c.visited(t.Table):
			seen[e.To] = true
			cands = append(cands, cand{t, 2})
		}
	}
	total := 0
	for _, x := range cands {
		total += x.weight
	}
	for total > 0 {
		r := w.rng.IntN(total)
		i := 0
		for r >= cands[i].weight {
			r -= cands[i].weight
			i++
		}
		mark := len(c.calls)
		next, err := w.follow(c, cur, cands[i].tool)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, errDeadEnd) {
			return nil, err
		}
		c.calls = c.calls[:mark] // the dead end's call is not part of the task
		total -= cands[i].weight
		cands = append(cands[:i], cands[i+1:]...)
	}
	return nil, errDeadEnd
}

func (c *chain) visited(table string) bool {
	for _, e := range c.entities {
		if e.table.Name == table {
			return true
		}
	}
	return false
}

func (w *walker) follow(c *chain, cur *entity, t *toolgen.Tool) (*entity, error) {
	m := w.spec.Model
	switch t.Kind {
	case toolgen.Parent:
		args, ok := keyArgs(t, cur.row)
		if !ok {
			return nil, errDeadEnd
		}
		out, err := w.call(c, t.Name, args)
		if err != nil {
			return nil, err
		}
		row, ok := out.(map[string]any)
		if !ok {
			return nil, errDeadEnd
		}
		p := m.Table(t.Table)
		role := strings.TrimPrefix(t.Name, "get_")
		role = role[:strings.LastIndex(role, "_of_")]
		e := &entity{table: p, row: row, tool: t.Name, desc: fmt.Sprintf("the %s of %s", dbmodel.Words(role), cur.desc)}
		c.entities = append(c.entities, e)
		c.noteIDs(w, e)
		return e, nil
	case toolgen.Children:
		v := cur.row[t.Via.RefColumns[0]]
		if v == nil {
			return nil, errDeadEnd
		}
		out, err := w.call(c, t.Name, map[string]any{t.Params[0].Name: argValue(v, t.Params[0].Type)})
		if err != nil {
			return nil, err
		}
		items := pageItems(out)
		if len(items) == 0 {
			return nil, errDeadEnd
		}
		child := m.Table(t.Table)
		row := items[w.rng.IntN(len(items))]
		d, err := w.distinguish(child, t.Via.Columns[0], sqlValue(v), row, len(items))
		if err != nil {
			return nil, err
		}
		// The distinguishing clause goes right after its noun, so that it
		// cannot be read as describing the parent: "the order with total
		// 120 of the customer whose email is ...".
		desc := fmt.Sprintf("the %s%s of %s", dbmodel.Words(child.Singular()), d, cur.desc)
		if d == "" {
			desc = fmt.Sprintf("the only %s of %s", dbmodel.Words(child.Singular()), cur.desc)
		}
		e := &entity{table: child, row: row, tool: t.Name, desc: desc}
		c.entities = append(c.entities, e)
		c.noteIDs(w, e)
		return e, nil
	}
	return nil, errDeadEnd
}

// toolFor returns the table's tool of a kind.
func (w *walker) toolFor(kind toolgen.Kind, table string) *toolgen.Tool {
	for _, t := range w.spec.Tools {
		if t.Kind == kind && t.Table == table {
			return t
		}
	}
	return nil
}

// keyArgs are the arguments naming row of t by its key for tool.
func keyArgs(tool *toolgen.Tool, row map[string]any) (map[string]any, bool) {
	args := map[string]any{}
	for _, p := range tool.Params {
		if p.Op == toolgen.OpKey {
			v, ok := row[p.Column]
			if !ok || v == nil {
				return nil, false
			}
			args[p.Name] = argValue(v, p.Type)
		}
	}
	return args, true
}

func pageItems(out any) []map[string]any {
	m, ok := out.(map[string]any)
	if !ok {
		return nil
	}
	arr, _ := m["items"].([]any)
	var items []map[string]any
	for _, it := range arr {
		if r, ok := it.(map[string]any); ok {
			items = append(items, r)
		}
	}
	return items
}
