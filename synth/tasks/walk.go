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
	table   *dbmodel.Table
	row     map[string]any // from the tool's JSON output (json.Number for numbers)
	desc    string         // "order ORD-10037", "the pending order of the customer Ana García", "me"
	person  bool           // the user is this row: spoken of as "me", "my"
	tool    string         // the call that produced it
	namedBy string         // the column its description uses, which a question must not ask for
	// others are rows the task could take this one for (its siblings in
	// the list it was picked from): the source of distractors.
	others []map[string]any
	parent *entity                // the row the chain came from (nil at the entry)
	redo   func(p *entity) string // the description again, from another description of parent
	mine   bool                   // the user's own row, or one of theirs (reached from it by its children)
	via    string                 // the reference of parent's table that led here (a parent hop), or ""
}

// chain is one executed chain of calls.
type chain struct {
	calls    []envpkg.Call
	entities []*entity
	ids      []string // internal ids seen, which the instruction must not contain
	me       bool     // the user speaks of themselves (an entity is "me")
	intro    string   // who the user is, when they speak of themselves: "I'm Ana García (ana@x.org)."
	persona  string   // the same for a simulated user (envpkg.Task.Persona)
	// distractors are answers for the rows the task could be confused
	// with; wrong are trajectories that must not solve it (gates.Candidate).
	distractors []string
	wrong       [][]envpkg.Call
	said        string // the expected answer as text, which the instruction must not contain
	aggregate   bool   // the question is about the rows of the row named (count, rank, sum), not the row
	asked       string // the column a question asks for (a shape the driver keeps from repeating)
	// reason is what a composed task makes the user reason about (its
	// condition, how many rows it chooses, its branch): part of its shape.
	reason string
	// answerOf is the table and column whose value the answer is (nil
	// for a count or a sum): the gates hide the answer among the
	// column's other values (gates.Candidate.Peers).
	answerOf  *dbmodel.Table
	answerCol string
	peers     []string
	// answerRow is the record the answer is a value of, when the chain
	// reached it (envpkg.Alone.Record: a right answer may name it).
	answerRow map[string]any
	// counted are the keys of the rows a count or a sum is over
	// (envpkg.Alone.Counted: a right answer may name every one of them).
	counted []envpkg.RecordValue
}

// countRows notes rows of t as rows the answer counts or adds up, by
// their one-column key.
func (c *chain) countRows(t *dbmodel.Table, rows ...map[string]any) {
	if t == nil || len(t.PrimaryKey) != 1 {
		return
	}
	k := t.PrimaryKey[0]
	for _, r := range rows {
		if v := r[k]; v != nil && sayable(v) && len(c.counted) < maxCounted {
			c.counted = append(c.counted, envpkg.RecordValue{Column: k, Value: strings.TrimSpace(fmt.Sprint(sqlValue(v)))})
		}
	}
}

// maxCounted bounds the counted rows a rule lists (a page of a list).
const maxCounted = 100

// answer is the rule for the expected answer v, the value of column col
// of a row of t, remembered as text.
func (c *chain) answer(t *dbmodel.Table, col string, v any) *envpkg.Answer {
	c.said = fmt.Sprint(sqlValue(v))
	c.answerOf, c.answerCol = t, col
	c.answerRow = nil
	for i := len(c.entities) - 1; i >= 0; i-- {
		if e := c.entities[i]; e.table == t && e.row != nil && fmt.Sprint(sqlValue(e.row[col])) == c.said {
			c.answerRow = e.row
			break
		}
	}
	return alone(answerFor(v), t, t.Column(col), c.said)
}

// errDeadEnd means the walk could not continue (no rows to follow).
var errDeadEnd = errors.New("dead end")

type walker struct {
	spec  *toolgen.Spec
	g     *graph.Graph
	src   *sqlite3.Conn
	ep    *runtime.Episode
	rng   *rand.Rand
	ctx   context.Context
	chain *chain // the chain being walked
	// anchored: the request is a person's own, found by what people know
	// (persona.go).
	anchored bool
	// composeFirst: the request starts at a row that owns rows, and is
	// composed over them first (where no person has rows of their own).
	composeFirst bool
	owners       map[string]bool // owns's answers, kept across attempts
}

// call runs a tool in the episode and decodes its JSON result.
func (w *walker) call(c *chain, name string, args map[string]any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		// A value JSON cannot carry (an infinity from the data): no
		// request can say it.
		return nil, fmt.Errorf("%w: %v", errDeadEnd, err)
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

// sample returns the value of a one-column query at a random offset
// below n, its last parameter (args bind the ones before).
func (w *walker) sample(sql string, n int64, args ...any) (any, error) {
	stmt, _, err := w.src.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, a := range args {
		if err := dbmodel.Bind(stmt, i+1, a); err != nil {
			return nil, err
		}
	}
	stmt.BindInt64(len(args)+1, w.rng.Int64N(max(n, 1)))
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
		if e.Strength != graph.Strong || seen[e.To] || t == nil || !countable(w.spec.Model.Table(t.Table), cur.table) {
			continue
		}
		switch {
		case t.Kind == toolgen.Children && t.Parent == cur.table.Name && !c.visited(t.Table) && !kindTable(cur.table) &&
			(cur.mine || len(c.entities) == 1 && ownRole(roleFor(t.Via.Columns[0], cur.table), cur.table)):
			// One row among many is picked from the user's own (my most
			// recent order), or from the row the request starts at by
			// what it owns (the pending order of the customer X), not
			// through a role ("the only store with the staff member X as
			// its manager") or from a row reached on the way.
			seen[e.To] = true
			cands = append(cands, cand{t, 3})
		case t.Kind == toolgen.Parent && t.Parent == cur.table.Name && cur.row[t.Via.Columns[0]] != nil && !c.visited(t.Table) &&
			!(cur.mine && !cur.person && refersTo(w.spec.Model.Table(t.Table), c.entities[0].table)):
			// (Not "the rental of my only payment": the rental is the
			// user's own, named as theirs.)
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

// refersTo: t has a reference to u.
func refersTo(t, u *dbmodel.Table) bool {
	if t == nil || u == nil {
		return false
	}
	for _, fk := range t.ForeignKeys {
		if fk.RefTable == u.Name {
			return true
		}
	}
	return false
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
		e := &entity{table: p, row: row, tool: t.Name, desc: parentDesc(role, p, cur), parent: cur, via: t.Via.Columns[0],
			redo: func(q *entity) string { return parentDesc(role, p, q) }}
		c.entities = append(c.entities, e)
		c.noteIDs(w, e)
		return e, nil
	case toolgen.Children:
		if m.Table(t.Table).KeyIsNatural && !cur.mine {
			// A row with a number people quote (order 10248) is named by
			// it, not through a row it belongs to ("the order shipped to
			// X assigned to Y"): the walk starts there. "My most recent
			// order" still reads well.
			return nil, errDeadEnd
		}
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
		// A row a person can tell from its siblings: up to three tries.
		var pick int
		var row map[string]any
		var d distinction
		for try := range 3 {
			pick = w.rng.IntN(len(items))
			row = items[pick]
			if d, err = w.distinguish(child, t.Via.Columns[0], sqlValue(v), row); err == nil {
				break
			} else if !errors.Is(err, errDeadEnd) || try == 2 {
				return nil, err
			}
		}
		fk := t.Via.Columns[0]
		if cur.person {
			// "my order 10248", "my order ORD-10037": the user has the
			// number.
			for _, nk := range child.NaturalKeys {
				if v := row[nk]; v != nil && !strings.HasPrefix(keyDesc(child, nk, v), "the ") {
					d = distinction{post: " " + fmt.Sprint(sqlValue(v)), col: nk}
					break
				}
			}
		}
		e := &entity{table: child, row: row, tool: t.Name, desc: childDescVia(child, fk, cur.table, d, cur), namedBy: d.col,
			parent: cur, mine: cur.mine, redo: func(q *entity) string { return childDescVia(child, fk, cur.table, d, q) }}
		for i, it := range items {
			if i != pick && len(e.others) < 5 {
				e.others = append(e.others, it)
			}
		}
		c.entities = append(c.entities, e)
		c.noteIDs(w, e)
		return e, nil
	}
	return nil, errDeadEnd
}

// callOf is a call with args, false when they do not encode as JSON (a
// ±inf from the data).
func callOf(name string, args map[string]any) (envpkg.Call, bool) {
	raw, err := json.Marshal(args)
	return envpkg.Call{Name: name, Arguments: raw}, err == nil
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
