package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/tasks"
)

// Every kept task gets the guard synth from-db gives its own tasks:
// nothing changed but what the ground truth changes. The model's checks
// say what must change; they seldom say what must not, and judges and
// players found tasks passing with an extra cancellation, a second
// reschedule, or a write made while answering a question. The gates try a
// few such wrong states (gates.Wrong) but cannot try them all, and a
// question's answer rule reads no state at all. The guard is made from the
// ground truth's own diff, so it holds on the ground truth by
// construction, and checked under both gate seeds before it is kept.

const guardName = "nothing else changed"

// guardTasks gives each task without one a guard over the state, made
// from its ground truth replayed in env; a task whose guard cannot be made
// (a table without a key, a collection that is not a table) or fails its
// own ground truth under a gate seed keeps its checks as they are.
func (r *envRun) guardTasks(ctx context.Context, ts []envpkg.Task) ([]envpkg.Task, error) {
	if len(ts) == 0 {
		return ts, nil
	}
	m, conn, err := r.initModel()
	if err != nil {
		r.logf("no state guards: %v", err)
		return ts, nil
	}
	defer conn.Close()
	env, _, probs, err := r.build(ctx, r.code, ts)
	if err != nil {
		return nil, err
	}
	if len(probs) > 0 {
		return ts, nil // the stage that built these reports the build
	}
	defer env.Close()
	out := make([]envpkg.Task, len(ts))
	for i, t := range ts {
		out[i] = t
		if hasGuard(t) {
			continue
		}
		g, err := guardFor(ctx, env, conn, m, t)
		if err != nil {
			r.logf("task %s: no state guard: %v", t.ID, err)
			continue
		}
		out[i].Checks = append(append([]envpkg.Check{}, t.Checks...), g)
	}
	return out, nil
}

// modelChecks are the checks the model wrote: cs without the guard this
// file adds, which a repair prompt does not show as the model's answer
// (the guard is made again after the repair).
func modelChecks(cs []envpkg.Check) []envpkg.Check {
	out := make([]envpkg.Check, 0, len(cs))
	for _, c := range cs {
		if !(c.Guard && c.Name == guardName) {
			out = append(out, c)
		}
	}
	return out
}

func hasGuard(t envpkg.Task) bool {
	for _, c := range t.Checks {
		if c.Guard && c.Name == guardName {
			return true
		}
	}
	return false
}

// initModel opens the environment's initial state (schema and data) in
// memory and reads its model.
func (r *envRun) initModel() (*dbmodel.Model, *sqlite3.Conn, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, nil, err
	}
	for _, s := range append(append([]string{}, r.schema...), r.data...) {
		if err := conn.Exec(s); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("initial state: %w", err)
		}
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return m, conn, nil
}

// guardFor replays t's ground truth, turns its diff into row changes and
// makes the guard; the guard is kept only if the ground truth passes it
// under every gate seed.
func guardFor(ctx context.Context, env *runtime.Env, conn *sqlite3.Conn, m *dbmodel.Model, t envpkg.Task) (envpkg.Check, error) {
	d, err := replayDiff(ctx, env, t, gateSeeds[0])
	if err != nil {
		return envpkg.Check{}, err
	}
	// Collections and keys in order: the guard's SQL is a function of the
	// task alone, not of a map's iteration order.
	var changes []tasks.RowChange
	for _, coll := range slices.Sorted(maps.Keys(d)) {
		tb := m.Table(coll)
		if tb == nil {
			return envpkg.Check{}, fmt.Errorf("collection %s is not a table", coll)
		}
		recs := d[coll]
		for _, key := range slices.Sorted(maps.Keys(recs)) {
			rec := recs[key]
			c, err := rowChange(conn, tb, key, rec)
			if err != nil {
				return envpkg.Check{}, err
			}
			changes = append(changes, c)
		}
	}
	g, err := tasks.KeptGuard(m, changes)
	if err != nil {
		return envpkg.Check{}, err
	}
	g.Name = guardName
	guarded := t
	guarded.Checks = append(append([]envpkg.Check{}, t.Checks...), g)
	for _, seed := range gateSeeds {
		if err := holds(ctx, env, guarded, seed); err != nil {
			return envpkg.Check{}, err
		}
	}
	return g, nil
}

// replayDiff plays t's ground truth in a fresh episode and returns its diff.
func replayDiff(ctx context.Context, env *runtime.Env, t envpkg.Task, seed int64) (runtime.Diff, error) {
	rc := env.Candidate(t)
	defer rc.Close()
	ep, err := rc.NewEpisode(seed)
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	for _, c := range t.Calls {
		res, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("ground-truth call %s failed", c.Name)
		}
	}
	return ep.Diff()
}

// holds plays the ground truth of t (guard included) under seed and
// reports an error unless the guard passes.
func holds(ctx context.Context, env *runtime.Env, t envpkg.Task, seed int64) error {
	rc := env.Candidate(t)
	defer rc.Close()
	ep, err := rc.NewEpisode(seed)
	if err != nil {
		return err
	}
	defer ep.Close()
	for _, c := range t.Calls {
		if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
			return err
		}
	}
	s, err := ep.ScoreChecks(ctx, nil)
	if err != nil {
		return err
	}
	last := len(t.Checks) - 1
	if last >= len(s.Checks) || !s.Checks[last].Passed {
		return fmt.Errorf("the guard fails the ground truth under seed %d", seed)
	}
	return nil
}

// rowChange is the change the diff's record rec (JSON null: deleted) makes
// to the row of tb whose key, as the runtime writes it, is key.
func rowChange(conn *sqlite3.Conn, tb *dbmodel.Table, key string, rec json.RawMessage) (tasks.RowChange, error) {
	c := tasks.RowChange{Table: tb.Name}
	if len(tb.PrimaryKey) == 0 {
		return c, fmt.Errorf("table %s has no primary key", tb.Name)
	}
	var pk, fields []string
	for _, k := range tb.PrimaryKey {
		pk = append(pk, dbmodel.Quote(k))
	}
	for _, col := range tb.Columns {
		fields = append(fields, "'"+strings.ReplaceAll(col.Name, "'", "''")+"', "+dbmodel.Quote(col.Name))
	}
	keyExpr := "CAST(" + pk[0] + " AS TEXT)"
	if len(pk) > 1 {
		keyExpr = "json_array(" + strings.Join(pk, ", ") + ")"
	}
	stmt, _, err := conn.Prepare(fmt.Sprintf("SELECT json_object(%s), %s FROM %s WHERE %s = ?",
		strings.Join(fields, ", "), strings.Join(pk, ", "), dbmodel.Quote(tb.Name), keyExpr))
	if err != nil {
		return c, err
	}
	defer stmt.Close()
	if err := stmt.BindText(1, key); err != nil {
		return c, err
	}
	if !stmt.Step() {
		if err := stmt.Err(); err != nil {
			return c, err
		}
		if isNull(rec) {
			return c, fmt.Errorf("%s: a row deleted that init does not hold", tb.Name)
		}
		c.Kind = "create"
		return c, nil
	}
	initRec := stmt.ColumnRawText(0)
	c.Key = map[string]any{}
	for i, k := range tb.PrimaryKey {
		c.Key[k] = dbmodel.ColumnValue(stmt, i+1)
	}
	if isNull(rec) {
		c.Kind = "delete"
		return c, nil
	}
	c.Kind = "update"
	var before, after map[string]json.RawMessage
	if err := json.Unmarshal(initRec, &before); err != nil {
		return c, err
	}
	if err := json.Unmarshal(rec, &after); err != nil {
		return c, err
	}
	for _, col := range tb.Columns {
		if !bytes.Equal(before[col.Name], after[col.Name]) {
			c.Cols = append(c.Cols, col.Name)
		}
	}
	return c, nil
}

func isNull(rec json.RawMessage) bool {
	return len(rec) == 0 || string(bytes.TrimSpace(rec)) == "null"
}
