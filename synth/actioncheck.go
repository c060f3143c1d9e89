package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// refusedMark ends every refusal of a domain action's rules: a call
// refused for another reason (a duplicate key, a missing row) does not
// count as the rule refusing it.
const refusedMark = "nothing was changed"

// checkAction tries a domain action the way the gates try a task: in a
// fresh episode, a call that must succeed and change the rows it names,
// then a call its rules must refuse, with nothing changed. For a status or
// a milestone the refused call is the same one again (the row is now
// there); for a consume it asks for more than the stock left.
func checkAction(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) (SmokeResult, error) {
	r := SmokeResult{Tool: t.Name}
	cands, err := actionCandidates(spec, t, src)
	if err != nil {
		return r, err
	}
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		return r, err
	}
	defer ep.Close()
	if len(cands) == 0 && t.Action.Rule == toolgen.RuleMilestone {
		// Every row of the data has closed: open one with the table's open
		// action, then close it.
		if cands, err = openedRow(ctx, ep, spec, t, src); err != nil {
			return r, err
		}
	}
	if len(cands) == 0 {
		// Nothing in the data to try it on (every row already there): the
		// action cannot be shown to work, so it is left out.
		r.Detail = "no row in the data the action applies to"
		return r, nil
	}
	var base runtime.Diff
	if base, err = ep.Diff(); err != nil {
		return r, err
	}
	var ok map[string]any
	for _, c := range cands {
		if a := t.Action; a.Rule == toolgen.RuleConsume {
			// Only a parent whose stock is tracked can show the refusal.
			if v, err := stockOf(src, a, c[paramOf(t, a.Stock.Ref)]); err != nil {
				return r, err
			} else if v == nil {
				continue
			}
		}
		raw, _ := json.Marshal(c)
		res, err := ep.Call(ctx, t.Name, raw)
		if err != nil {
			return r, err
		}
		r.Args, r.Outcome, r.Detail = raw, res.Outcome, res.Content
		if res.Outcome == runtime.OutcomeOK {
			ok = c
			break
		}
	}
	if ok == nil {
		r.Detail = "no call succeeded: " + r.Detail
		return r, nil
	}
	after, err := ep.Diff()
	if err != nil {
		return r, err
	}
	if len(after[t.Table]) == len(base[t.Table]) && reflect.DeepEqual(after[t.Table], base[t.Table]) {
		r.Detail = "the call succeeded but changed no row of " + t.Table
		return r, nil
	}
	if a := t.Action; a.Rule == toolgen.RuleConsume && len(after[a.Stock.Table]) == 0 {
		r.Detail = "the call succeeded but took nothing from " + a.Stock.Table
		return r, nil
	}
	if t.Action.Rule == toolgen.RuleOpen {
		if r.Rules, err = checkOpenRules(ctx, env, spec, t, src, ep, ok); err != nil {
			return r, err
		}
		r.Passed, r.Detail = rulesPassed(r.Rules)
		return r, nil
	}
	refuse := ok
	if a := t.Action; a.Rule == toolgen.RuleLines {
		if refuse, err = refuseLines(t, ok, src); err != nil {
			return r, err
		}
	}
	if a := t.Action; a.Rule == toolgen.RuleConsume {
		refuse = maps(ok)
		stock, err := stockOf(src, a, ok[paramOf(t, a.Stock.Ref)])
		if err != nil {
			return r, err
		}
		// What is left after the first call, and one more.
		refuse[paramOf(t, a.Column)] = stock
	}
	raw, _ := json.Marshal(refuse)
	res, err := ep.Call(ctx, t.Name, raw)
	if err != nil {
		return r, err
	}
	again, err := ep.Diff()
	if err != nil {
		return r, err
	}
	r.Refused, r.RefusedWith = raw, res.Content
	switch {
	case res.Outcome != runtime.OutcomeToolError || !strings.Contains(res.Content, refusedMark):
		r.Detail = fmt.Sprintf("a call its rules must refuse came back %s: %s", res.Outcome, res.Content)
	case !reflect.DeepEqual(after, again):
		r.Detail = "a refused call changed the state"
	default:
		r.Passed, r.Detail = true, ""
	}
	return r, nil
}

// paramOf is the name of t's parameter for column col.
func paramOf(t *toolgen.Tool, col string) string {
	for _, p := range t.Params {
		if p.Column == col {
			return p.Name
		}
	}
	return ""
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stockOf is a parent's stock in the source (nil when not tracked).
func stockOf(src *sqlite3.Conn, a *toolgen.Action, key any) (any, error) {
	stmt, _, err := src.Prepare("SELECT " + dbmodel.Quote(a.Stock.Column) + " FROM " + dbmodel.Quote(a.Stock.Table) + " WHERE " + dbmodel.Quote(a.Stock.Key) + " = ?")
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	if err := bindAny(stmt, 1, key); err != nil {
		return nil, err
	}
	if stmt.Step() {
		return dbmodel.ColumnValue(stmt, 0), nil
	}
	return nil, stmt.Err()
}

func bindAny(stmt *sqlite3.Stmt, i int, v any) error {
	switch x := v.(type) {
	case int64:
		return stmt.BindInt64(i, x)
	case float64:
		return stmt.BindFloat(i, x)
	case string:
		return stmt.BindText(i, x)
	case nil:
		return stmt.BindNull(i)
	}
	return stmt.BindText(i, fmt.Sprint(v))
}

// actionCandidates are argument sets to try t with, from the data: rows
// not yet in the state the action moves them to; for a consume, existing
// lines copied onto each parent with stock to spare, asking for one.
func actionCandidates(spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) ([]map[string]any, error) {
	tb := spec.Model.Table(t.Table)
	a := t.Action
	col := dbmodel.Quote(a.Column)
	var rows []map[string]any
	var err error
	switch a.Rule {
	case toolgen.RuleStatus:
		if len(a.From) > 0 {
			// A designed status moves only from these values.
			from := make([]any, len(a.From))
			for i, v := range a.From {
				from[i] = v
			}
			rows, err = queryRows(src, "SELECT * FROM "+dbmodel.Quote(tb.Name)+" WHERE "+col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(from)), ", ")+") LIMIT 5", from...)
			break
		}
		rows, err = queryRows(src, "SELECT * FROM "+dbmodel.Quote(tb.Name)+" WHERE "+col+" IS NOT ? LIMIT 5", a.Value)
	case toolgen.RuleMilestone:
		rows, err = queryRows(src, "SELECT * FROM "+dbmodel.Quote(tb.Name)+" WHERE "+col+" IS NULL LIMIT 5")
	case toolgen.RuleConsume:
		return consumeCandidates(spec, t, src)
	case toolgen.RuleLines:
		return linesCandidates(spec, t, src)
	case toolgen.RuleOpen:
		return openCandidates(spec, t, src)
	}
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, row := range rows {
		args := map[string]any{}
		for _, p := range t.Params {
			args[p.Name] = convert(row[p.Column], p.Type)
		}
		out = append(out, args)
	}
	return out, nil
}

func consumeCandidates(spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) ([]map[string]any, error) {
	a := t.Action
	sc := dbmodel.Quote(a.Stock.Column)
	// Lines whose own parent has stock to spare first: every other rule
	// (ownership) holds for them as the data has it.
	lines, err := queryRows(src, "SELECT l.* FROM "+dbmodel.Quote(t.Table)+" AS l JOIN "+dbmodel.Quote(a.Stock.Table)+" AS p ON p."+dbmodel.Quote(a.Stock.Key)+" = l."+dbmodel.Quote(a.Stock.Ref)+" WHERE p."+sc+" >= 2 LIMIT 5")
	if err != nil {
		return nil, err
	}
	more, err := queryRows(src, "SELECT * FROM "+dbmodel.Quote(t.Table)+" LIMIT 5")
	if err != nil {
		return nil, err
	}
	lines = append(lines, more...)
	parents, err := queryRows(src, "SELECT "+dbmodel.Quote(a.Stock.Key)+" AS k FROM "+dbmodel.Quote(a.Stock.Table)+" WHERE "+sc+" >= 2 ORDER BY "+sc+" DESC LIMIT 8")
	if err != nil {
		return nil, err
	}
	// A key part of plain numbers (a sequence number) gets a new value: a
	// copied line must not be the line it copies.
	tb := spec.Model.Table(t.Table)
	fresh := map[string]any{}
	for _, k := range tb.PrimaryKey {
		if c := tb.Column(k); c.Kind == dbmodel.Integer && tb.ForeignKeyOf(k) == nil {
			r, err := queryRows(src, "SELECT coalesce(max("+dbmodel.Quote(k)+"), 0) + 1 AS n FROM "+dbmodel.Quote(tb.Name))
			if err != nil {
				return nil, err
			}
			fresh[k] = r[0]["n"]
		}
	}
	var out []map[string]any
	for _, line := range lines {
		// The line's own parent first: an ownership rule holds for it.
		keys := []any{line[a.Stock.Ref]}
		for _, p := range parents {
			keys = append(keys, p["k"])
		}
		for _, k := range keys {
			args := map[string]any{}
			for _, p := range t.Params {
				v := line[p.Column]
				switch p.Column {
				case a.Stock.Ref:
					v = k
				case a.Column:
					v = int64(1)
				}
				if f, ok := fresh[p.Column]; ok {
					v = f
				}
				if v == nil {
					continue
				}
				if _, blob := v.([]byte); blob {
					continue
				}
				args[p.Name] = convert(v, p.Type)
			}
			out = append(out, args)
		}
	}
	return out, nil
}

// queryRows runs a query on the source and returns its rows by column.
func queryRows(src *sqlite3.Conn, sql string, args ...any) ([]map[string]any, error) {
	stmt, _, err := src.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, v := range args {
		if err := bindAny(stmt, i+1, v); err != nil {
			return nil, err
		}
	}
	var out []map[string]any
	for stmt.Step() {
		row := map[string]any{}
		for i := range stmt.ColumnCount() {
			row[stmt.ColumnName(i)] = dbmodel.ColumnValue(stmt, i)
		}
		out = append(out, row)
	}
	return out, stmt.Err()
}
