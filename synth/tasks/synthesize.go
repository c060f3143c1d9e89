package tasks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/gates"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Options are the difficulty and size knobs.
type Options struct {
	N          int     // tasks to keep
	Seed       int64   // sampling and episode seed
	MaxChain   int     // most calls in a chain (default 5)
	WriteShare float64 // share of write tasks among attempts (default 0.5; 0 with a read-only toolset)
	// Branching is the weight of following a reference to many rows (a
	// list) rather than to one (a parent), relative to 1 (default 1.5).
	Branching   float64
	MaxAttempts int // default 10×N
	// StateReward makes write tasks also require the final state to equal
	// the ground truth's (reward: state), which catches changes to tables
	// the "nothing else changed" check does not read.
	StateReward bool
	Progress    func(kept, want int) // called after each attempt
}

// Stats describe a run.
type Stats struct {
	Attempts  int            `json:"attempts"`
	DeadEnds  int            `json:"dead_ends"` // chains that found nothing to follow or change
	Kept      int            `json:"kept"`
	Reads     int            `json:"reads"`
	Writes    int            `json:"writes"`
	ChainHist map[int]int    `json:"chain_length_histogram"` // calls per kept task
	ByKind    map[string]int `json:"by_kind"`                // kept tasks by final step
	Gates     gates.Counts   `json:"gates"`
}

// Synthesize samples chains, executes them in episodes of env, and keeps
// the tasks the checker passes. src is a read-only connection to the same
// data as env's initial state (used to sample values and check that a
// description picks out one row).
func Synthesize(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, g *graph.Graph, src *sqlite3.Conn, checker *gates.Checker, opts Options) ([]envpkg.Task, Stats, error) {
	if opts.MaxChain < 2 {
		opts.MaxChain = 5
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 10 * opts.N
	}
	if opts.Branching == 0 {
		opts.Branching = 1.5
	}
	writable := false
	for _, t := range spec.Tools {
		writable = writable || t.Kind.Writes()
	}
	if !writable {
		opts.WriteShare = 0
	}
	st := Stats{ChainHist: map[int]int{}, ByKind: map[string]int{}}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed))
	var kept []envpkg.Task
	for st.Attempts < opts.MaxAttempts && len(kept) < opts.N {
		if err := ctx.Err(); err != nil {
			return kept, st, err
		}
		st.Attempts++
		task, cand, kind, err := attempt(ctx, env, spec, g, src, rng, opts, len(kept))
		if errors.Is(err, errDeadEnd) {
			st.DeadEnds++
		} else if err != nil {
			return kept, st, err
		} else {
			v, err := checker.Check(ctx, gates.Candidate{Task: task, InternalIDs: cand.ids})
			if err == nil {
				kept = append(kept, task)
				st.Kept++
				st.ChainHist[len(task.Calls)]++
				st.ByKind[kind]++
				if v.Writes {
					st.Writes++
				} else {
					st.Reads++
				}
			} else if !errors.Is(err, gates.ErrRejected) {
				return kept, st, err
			}
		}
		if opts.Progress != nil {
			opts.Progress(len(kept), opts.N)
		}
	}
	st.Gates = checker.Counts()
	return kept, st, nil
}

// attempt samples and executes one chain and turns it into a task.
func attempt(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, g *graph.Graph, src *sqlite3.Conn, rng *rand.Rand, opts Options, n int) (envpkg.Task, *chain, string, error) {
	ep, err := env.NewEpisode("", opts.Seed)
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	defer ep.Close()
	w := &walker{spec: spec, g: g, src: src, ep: ep, rng: rng, ctx: ctx}
	c := &chain{}
	cur, err := w.entry(c)
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	write := rng.Float64() < opts.WriteShare
	// Hops: the final step takes one call, the entry one; the rest follow
	// references. Longer walks are likelier, up to MaxChain.
	room := opts.MaxChain - 2 // a read's count question also takes a call
	hops := 0
	if room > 0 {
		weights := []int{1, 3, 3, 2, 1}
		hops = pick(rng, weights[:min(room, len(weights)-1)+1])
	}
	for range hops {
		next, err := w.hop(c, cur)
		if errors.Is(err, errDeadEnd) {
			break
		}
		if err != nil {
			return envpkg.Task{}, nil, "", err
		}
		cur = next
	}
	var t envpkg.Task
	var kind string
	if write {
		t, kind, err = w.finishWrite(c, cur)
	} else {
		t, kind, err = w.finishRead(c, cur)
	}
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	if write && opts.StateReward {
		t.Reward = envpkg.RewardState
	}
	t.ID = fmt.Sprintf("synth-%04d-%s-%s", n+1, kind, emit.EnvName(cur.table.Singular()))
	t.Calls = c.calls
	if t.Checks == nil {
		t.Checks = []envpkg.Check{}
	}
	return t, c, kind, nil
}

func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

var (
	askTemplates    = []string{"What is the %s of %s?", "Could you tell me the %s of %s?", "I need the %s of %s. What is it?"}
	countTemplates  = []string{"How many %s does %s have?", "Can you count the %s of %s for me?"}
	updateTemplates = []string{"Please change the %s of %s to %s.", "Set the %s of %s to %s.", "The %s of %s should be %s; please update it."}
	deleteTemplates = []string{"Please delete %s.", "Remove %s; it is no longer needed."}
	createTemplates = []string{"Add a new %s to %s with %s.", "Please record a new %s for %s: %s."}
)

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// finishRead ends with a question: an attribute of cur, or how many rows
// refer to it (one more call).
func (w *walker) finishRead(c *chain, cur *entity) (envpkg.Task, string, error) {
	// Questions over the rows referring to cur (one more call), or an
	// attribute of cur.
	switch w.rng.IntN(6) {
	case 0:
		if t, err := w.countChildren(c, cur); err == nil {
			return t, "count", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 1:
		if t, err := w.countFiltered(c, cur); err == nil {
			return t, "count-filtered", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 2:
		if t, err := w.topChild(c, cur); err == nil {
			return t, "top", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	}
	cols := describable(cur.table)
	w.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, col := range cols {
		v := cur.row[col.Name]
		if v == nil || !sayable(v) || strings.Contains(cur.desc, " "+words(col.Name)+" ") {
			continue
		}
		val := show(v)
		if col.Kind == dbmodel.Text && (len(strings.Trim(val, `"`)) < 2) {
			continue
		}
		match := "contains"
		ans := fmt.Sprint(sqlValue(v))
		if _, isNum := sqlValue(v).(string); !isNum {
			match = "number"
		}
		tmpl := askTemplates[w.rng.IntN(len(askTemplates))]
		return envpkg.Task{Instruction: fmt.Sprintf(tmpl, words(col.Name), cur.desc),
			Answer: &envpkg.Answer{Value: ans, Match: match}}, "ask", nil
	}
	return envpkg.Task{}, "", errDeadEnd
}

func (w *walker) countChildren(c *chain, cur *entity) (envpkg.Task, error) {
	var tools []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == cur.table.Name {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	t := tools[w.rng.IntN(len(tools))]
	v := cur.row[t.Via.RefColumns[0]]
	out, err := w.call(c, t.Name, map[string]any{t.Params[0].Name: argValue(v, t.Params[0].Type)})
	if err != nil {
		return envpkg.Task{}, err
	}
	m, _ := out.(map[string]any)
	total := fmt.Sprint(m["total"])
	what := words(t.Table)
	if !strings.Contains(t.Name, "_of_") {
		what += " (by " + words(t.Via.Columns[0]) + ")"
	}
	tmpl := countTemplates[w.rng.IntN(len(countTemplates))]
	return envpkg.Task{Instruction: capitalize(fmt.Sprintf(tmpl, what, cur.desc)), Answer: &envpkg.Answer{Value: total, Match: "number"}}, nil
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

// keyCond is the SQL condition selecting row of t by its key.
func keyCond(t *dbmodel.Table, row map[string]any) string {
	var w []string
	for _, k := range t.PrimaryKey {
		w = append(w, dbmodel.Quote(k)+" IS "+emit.Literal(sqlValue(row[k])))
	}
	return strings.Join(w, " AND ")
}

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
		if p.Op == toolgen.OpSet && col != nil && !col.Unique && cur.table.ForeignKeyOf(col.Name) == nil && !isNatural(cur.table, col.Name) {
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
		q := dbmodel.Quote(cur.table.Name)
		checks := []envpkg.Check{{Name: fmt.Sprintf("%s set to %s", words(col.Name), show(nv)),
			SQL: fmt.Sprintf("SELECT %s IS %s FROM main.%s WHERE %s", dbmodel.Quote(col.Name), emit.Literal(stored), q, keyCond(cur.table, cur.row))}}
		checks = append(checks, envpkg.Check{Name: "nothing else changed",
			SQL: unchangedAfterUpdate(cur.table, cur.row, col.Name)})
		tmpl := updateTemplates[w.rng.IntN(len(updateTemplates))]
		shown := show(nv)
		if b, ok := nv.(bool); ok {
			shown = map[bool]string{true: "yes", false: "no"}[b]
		}
		return envpkg.Task{Instruction: fmt.Sprintf(tmpl, words(col.Name), cur.desc, shown), Checks: checks}, nil
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
	q := dbmodel.Quote(cur.table.Name)
	cond := keyCond(cur.table, cur.row)
	checks := []envpkg.Check{
		{Name: "the " + words(cur.table.Singular()) + " is gone", SQL: fmt.Sprintf("SELECT COUNT(*) = 0 FROM main.%s WHERE %s", q, cond)},
		{Name: "nothing else changed", SQL: unchangedAfterDelete(cur.table, cur.row)},
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
	var conds, said []string
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
		conds = append(conds, dbmodel.Quote(p.Column)+" IS "+emit.Literal(v))
		if p.Column != fkCol {
			if w.spec.Model.Table(child.Name).ForeignKeyOf(p.Column) != nil {
				return envpkg.Task{}, errDeadEnd // another reference: the user would have to name it by id
			}
			said = append(said, words(p.Column)+" "+showCol(child.Column(p.Column), v))
		}
	}
	sort.Strings(said)
	if len(said) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	q := dbmodel.Quote(child.Name)
	checks := []envpkg.Check{
		{Name: "the new " + words(child.Singular()) + " exists", SQL: fmt.Sprintf("SELECT COUNT(*) = (SELECT COUNT(*) FROM init.%[1]s WHERE %[2]s) + 1 FROM main.%[1]s WHERE %[2]s", q, strings.Join(conds, " AND "))},
		{Name: "nothing else changed", SQL: unchangedAfterCreate(child)},
	}
	t := createTemplates[w.rng.IntN(len(createTemplates))]
	return envpkg.Task{Instruction: fmt.Sprintf(t, words(child.Singular()), cur.desc, strings.Join(said, ", ")), Checks: checks}, nil
}
