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

// RuleCheck is one rule of an action tried in the gates: a call the rule
// must refuse, and what came back.
type RuleCheck struct {
	Rule        string          `json:"rule"`
	Args        json.RawMessage `json:"args"`
	RefusedWith string          `json:"refused_with"`
	Passed      bool            `json:"passed"`
}

// openCandidates are open calls made from the data: an existing row's
// fields (its unique ones made new), on a parent with no open row for
// each reference that allows one open row at a time.
func openCandidates(spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) ([]map[string]any, error) {
	o, tb := t.Action.Open, spec.Model.Table(t.Table)
	rows, err := queryRows(src, "SELECT * FROM "+dbmodel.Quote(tb.Name)+" LIMIT 5")
	if err != nil {
		return nil, err
	}
	free := map[string][]map[string]any{}
	for _, r := range o.Avail {
		if free[r.Column], err = queryRows(src, "SELECT "+dbmodel.Quote(r.Key)+" AS k FROM "+dbmodel.Quote(r.Parent)+" WHERE "+dbmodel.Quote(r.Key)+
			" NOT IN (SELECT "+dbmodel.Quote(r.Column)+" FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(o.Milestone)+" IS NULL AND "+dbmodel.Quote(r.Column)+" IS NOT NULL) LIMIT 3"); err != nil {
			return nil, err
		}
	}
	var out []map[string]any
	for i, row := range rows {
		for pick := range 3 {
			args := map[string]any{}
			for _, p := range t.Params {
				v := row[p.Column]
				if fr, ok := free[p.Column]; ok {
					if pick >= len(fr) {
						continue
					}
					v = fr[pick]["k"]
				}
				if v == nil || p.Stamp {
					continue
				}
				if _, blob := v.([]byte); blob {
					continue
				}
				if unique(tb, p.Column) || contains(o.Unique, p.Column) {
					if v, err = freshValue(src, tb, p.Column, v, i*3+pick); err != nil {
						return nil, err
					}
				}
				args[p.Name] = convert(v, p.Type)
			}
			out = append(out, args)
		}
	}
	return out, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkOpenRules tries every rule of the open action t after ok
// succeeded in ep: the same call again (a parent now has an open row), and
// in fresh episodes a missing reference, a number out of its bounds, a
// taken unique value, parents of different owners. Each must be refused
// with its own words and leave the state as it was.
func checkOpenRules(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn, ep *runtime.Episode, ok map[string]any) ([]RuleCheck, error) {
	o, tb := t.Action.Open, spec.Model.Table(t.Table)
	var out []RuleCheck
	try := func(rule, want string, e *runtime.Episode, args map[string]any) error {
		before, err := e.Diff()
		if err != nil {
			return err
		}
		raw, _ := json.Marshal(args)
		res, err := e.Call(ctx, t.Name, raw)
		if err != nil {
			return err
		}
		after, err := e.Diff()
		if err != nil {
			return err
		}
		out = append(out, RuleCheck{Rule: rule, Args: raw, RefusedWith: res.Content,
			Passed: res.Outcome == runtime.OutcomeToolError && strings.Contains(res.Content, refusedMark) && strings.Contains(res.Content, want) && reflect.DeepEqual(before, after)})
		return nil
	}
	fresh := func(rule, want string, args map[string]any) error {
		e, err := env.NewEpisode("", 1)
		if err != nil {
			return err
		}
		defer e.Close()
		return try(rule, want, e, args)
	}
	for _, r := range o.Avail {
		if err := try("one open per "+r.Parent, "already has", ep, ok); err != nil {
			return nil, err
		}
	}
	// A reference to no row: the first one the call gives, and each
	// owner's (the row belongs to an owner that exists).
	missing := func(p *toolgen.Param, fk *dbmodel.ForeignKey) (map[string]any, error) {
		args := maps(ok)
		if p.Type == "string" {
			args[p.Name] = "no-such-" + p.Name
			return args, nil
		}
		rows, err := queryRows(src, "SELECT coalesce(max("+dbmodel.Quote(fk.RefColumns[0])+"), 0) + 1000 AS n FROM "+dbmodel.Quote(fk.RefTable))
		if err != nil {
			return nil, err
		}
		args[p.Name] = convert(rows[0]["n"], p.Type)
		return args, nil
	}
	for _, p := range t.Params {
		if fk := tb.ForeignKeyOf(p.Column); fk != nil && p.Required && len(fk.RefColumns) == 1 {
			args, err := missing(&p, fk)
			if err != nil {
				return nil, err
			}
			if err := fresh("references exist", "does not exist", args); err != nil {
				return nil, err
			}
			break
		}
	}
	for _, r := range o.Owned {
		p, fk := t.Param(paramOf(t, r.Column)), tb.ForeignKeyOf(r.Column)
		if p == nil || fk == nil {
			continue
		}
		args, err := missing(p, fk)
		if err != nil {
			return nil, err
		}
		if err := fresh("owned by an existing "+r.Parent, "does not exist", args); err != nil {
			return nil, err
		}
	}
	for _, b := range o.Bounds {
		args := maps(ok)
		rows, err := queryRows(src, "SELECT "+dbmodel.Quote(b.Max)+" AS hi FROM "+dbmodel.Quote(b.Ref.Parent)+" WHERE "+dbmodel.Quote(b.Ref.Key)+" = ?", ok[paramOf(t, b.Ref.Column)])
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 || rows[0]["hi"] == nil {
			continue
		}
		hi, _ := rows[0]["hi"].(int64)
		hf, isF := rows[0]["hi"].(float64)
		p := t.Param(paramOf(t, b.Column))
		switch {
		case isF && p.Type == "number":
			args[p.Name] = hf + 1
		case isF:
			args[p.Name] = int64(hf) + 1
		default:
			args[p.Name] = convert(hi+1, p.Type)
		}
		if err := fresh(b.Column+" within "+b.Min+" to "+b.Max, "is outside", args); err != nil {
			return nil, err
		}
	}
	for _, u := range o.Unique {
		name := paramOf(t, u)
		rows, err := queryRows(src, "SELECT "+dbmodel.Quote(u)+" AS v FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(u)+" IS NOT NULL LIMIT 1")
		if err != nil {
			return nil, err
		}
		if name == "" || len(rows) == 0 {
			continue
		}
		args := maps(ok)
		args[name] = convert(rows[0]["v"], t.Param(name).Type)
		if err := fresh("unique "+u, "already has the", args); err != nil {
			return nil, err
		}
	}
	// A CHECK on a number no bound covers: a value far below any the
	// data holds. Tried only where the CHECK names the column; a call it
	// lets through shows the CHECK is about something else, and is no
	// rule of this column (the episode is thrown away).
	bounded := map[string]bool{}
	for _, b := range o.Bounds {
		bounded[b.Column] = true
	}
	for _, p := range t.Params {
		if (p.Type != "integer" && p.Type != "number") || bounded[p.Column] || tb.ForeignKeyOf(p.Column) != nil || !checkNames(tb, p.Column) {
			continue
		}
		args := maps(ok)
		args[p.Name] = int64(-1000000)
		e, err := env.NewEpisode("", 1)
		if err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(args)
		res, err := e.Call(ctx, t.Name, raw)
		e.Close()
		if err != nil {
			return nil, err
		}
		if res.Outcome == runtime.OutcomeOK {
			continue
		}
		if err := fresh("check on "+p.Column, "breaks the rule", args); err != nil {
			return nil, err
		}
	}
	for _, w := range o.Owners {
		// A B-parent that belongs to another owner than the A-parent.
		rows, err := queryRows(src, "SELECT "+dbmodel.Quote(w.B.Key)+" AS k FROM "+dbmodel.Quote(w.B.Parent)+" WHERE "+dbmodel.Quote(w.BCol)+" IS NOT (SELECT "+
			dbmodel.Quote(w.ACol)+" FROM "+dbmodel.Quote(w.A.Parent)+" WHERE "+dbmodel.Quote(w.A.Key)+" = ?) LIMIT 1", ok[paramOf(t, w.A.Column)])
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			continue
		}
		args := maps(ok)
		name := paramOf(t, w.B.Column)
		args[name] = convert(rows[0]["k"], t.Param(name).Type)
		if err := fresh("same "+w.Owner, "belong to different", args); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rulesPassed reports whether every rule tried was refused as it must be,
// and says which was not.
func rulesPassed(rs []RuleCheck) (bool, string) {
	for _, r := range rs {
		if !r.Passed {
			return false, fmt.Sprintf("rule %q: a call it must refuse came back: %s", r.Rule, r.RefusedWith)
		}
	}
	return true, ""
}

// openedRow opens a row of milestone t's table with the table's open
// action in ep and returns t's arguments for it: the milestone's gate
// where every row of the data has closed. None when the table has no open
// action or it opens nothing.
func openedRow(ctx context.Context, ep *runtime.Episode, spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) ([]map[string]any, error) {
	for _, o := range spec.Tools {
		if o.Kind != toolgen.DomainAction || o.Action.Rule != toolgen.RuleOpen || o.Table != t.Table {
			continue
		}
		cands, err := openCandidates(spec, o, src)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			raw, _ := json.Marshal(c)
			res, err := ep.Call(ctx, o.Name, raw)
			if err != nil {
				return nil, err
			}
			if res.Outcome != runtime.OutcomeOK {
				continue
			}
			var row map[string]any
			if err := json.Unmarshal([]byte(res.Content), &row); err != nil {
				return nil, fmt.Errorf("%s: its result is not a row: %w", o.Name, err)
			}
			args := map[string]any{}
			for _, p := range t.Params {
				args[p.Name] = convert(row[p.Column], p.Type)
			}
			return []map[string]any{args}, nil
		}
	}
	return nil, nil
}

// checkNames reports whether a CHECK of t names column col.
func checkNames(t *dbmodel.Table, col string) bool {
	for _, c := range t.Checks {
		for _, w := range strings.FieldsFunc(strings.ToLower(c), func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if w == strings.ToLower(col) {
				return true
			}
		}
	}
	return false
}
