package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// The checks of a composed change: every row the episode now differs in,
// each under a name of its own.

// diffChecks are the checks of every row the episode now differs in: the
// changes the chain made, and nothing else.
func (w *walker) diffChecks() ([]envpkg.Check, error) {
	changes, err := w.diffChanges()
	if err != nil {
		return nil, err
	}
	return writeChecks(w.spec.Model, changes, nil), nil
}

// diffChanges are the changes the episode now holds, one per row.
func (w *walker) diffChanges() ([]change, error) {
	d, err := w.ep.Diff()
	if err != nil {
		return nil, err
	}
	var changes []change
	names := mapKeysOf(d)
	slices.Sort(names)
	for _, name := range names {
		tb := w.spec.Model.Table(name)
		if tb == nil || len(tb.PrimaryKey) == 0 {
			return nil, fmt.Errorf("%w: the action changed %s, which has no key to check it by", errDeadEnd, name)
		}
		// The episode's diff lists a table's rows in no set order: the
		// checks must not depend on it (one seed, one environment).
		keys := mapKeysOf(d[name])
		slices.Sort(keys)
		for _, k := range keys {
			ch, err := w.changeOf(tb, d[name][k])
			if err != nil {
				return nil, err
			}
			changes = append(changes, ch)
		}
	}
	if len(changes) == 0 {
		return nil, errDeadEnd
	}
	distinctNames(changes)
	if w.chain != nil {
		// What the chain's actions stamped from the episode clock.
		for _, call := range w.chain.calls {
			if tl := w.spec.Tool(call.Name); tl != nil && tl.Kind == toolgen.DomainAction {
				loosen(changes, tl)
			}
		}
	}
	return changes, nil
}

// wroteSince: a call after mark changed the episode (a dead end past it
// cannot fall back to another ending in the same episode).
func (w *walker) wroteSince(c *chain, mark int) bool {
	for _, call := range c.calls[mark:] {
		if tl := w.spec.Tool(call.Name); tl != nil && tl.Kind.Writes() {
			return true
		}
	}
	return false
}

// distinctNames gives the changes that share a name (two rows set alike,
// two lines added) the row each is on, so that every check has a name of
// its own: a score reports checks by name.
func distinctNames(changes []change) {
	seen := map[string]int{}
	for _, ch := range changes {
		seen[ch.name]++
	}
	nth := map[string]int{}
	for i := range changes {
		ch := &changes[i]
		if seen[ch.name] < 2 {
			continue
		}
		nth[ch.name]++
		if ch.row == nil {
			ch.name = fmt.Sprintf("%s (%d of %d)", ch.name, nth[ch.name], seen[ch.name])
			continue
		}
		ch.name += " (" + rowLabel(ch.table, ch.row) + ")"
	}
}

// rowLabel names a row for a check: by its natural key, else its key.
func rowLabel(t *dbmodel.Table, row map[string]any) string {
	for _, nk := range t.NaturalKeys {
		if v := row[nk]; v != nil {
			return noun(t) + " " + fmt.Sprint(sqlValue(v))
		}
	}
	var parts []string
	for _, k := range t.PrimaryKey {
		parts = append(parts, fmt.Sprint(sqlValue(row[k])))
	}
	return noun(t) + " " + strings.Join(parts, "/")
}

// loosen checks the columns action t stamps from the episode clock (its
// moves, an open's start, a create's bookkeeping stamps) as set, not as
// the time the walk saw: the clock counts calls, and an agent that looks
// one more row up stamps a second later, rightly.
func loosen(changes []change, t *toolgen.Tool) {
	stamped := map[string]bool{}
	for _, m := range t.Action.Moves {
		stamped[m.Column] = true
	}
	if t.Action.Rule == toolgen.RuleOpen {
		stamped[t.Action.Open.Start] = true
	}
	for _, p := range t.Params {
		if p.Stamp {
			stamped[p.Column] = true
		}
	}
	for i := range changes {
		ch := &changes[i]
		if ch.table.Name != t.Table {
			continue
		}
		for col := range ch.cols {
			if stamped[col] && ch.cols[col] != nil {
				if ch.loose == nil {
					ch.loose = map[string]string{}
				}
				ch.loose[col] = dbmodel.Quote(col) + " IS NOT NULL"
			}
		}
	}
}
