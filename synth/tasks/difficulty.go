package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
)

// difficulty estimates how hard a task is from its chain: calls, internal
// ids carried between calls, the siblings the agent had to tell apart, the
// changes asked for and whether the request was conditional.
func difficulty(c *chain, t *envpkg.Task, kind string) *envpkg.Difficulty {
	internal := map[string]bool{}
	for _, e := range c.entities {
		for _, col := range e.table.Columns {
			isID := e.table.IsKey(col.Name) && !e.table.IsNatural(col.Name) || e.table.ForeignKeyOf(col.Name) != nil
			if v := e.row[col.Name]; isID && v != nil {
				internal[fmt.Sprint(sqlValue(v))] = true
			}
		}
	}
	d := &envpkg.Difficulty{Calls: len(t.Calls), Conditional: kind == "update-if" || kind == "refuse-if"}
	for i, call := range t.Calls {
		if i == 0 {
			continue // the first call takes what the user said
		}
		var args map[string]any
		d2 := json.NewDecoder(bytes.NewReader(call.Arguments))
		d2.UseNumber()
		if d2.Decode(&args) != nil {
			continue
		}
		for _, v := range args {
			if internal[fmt.Sprint(sqlValue(v))] {
				d.IDs++
				break
			}
		}
	}
	for _, e := range c.entities {
		d.Distractors += len(e.others)
	}
	for _, ch := range t.Checks {
		if !ch.Guard {
			d.Writes++
		}
	}
	if d.Writes > 0 {
		d.Writes-- // the last check is the whole-state one
	}
	level := 1 + d.Calls/3 + d.IDs/2 + min(d.Distractors, 4)/2 + max(d.Writes-1, 0)
	if d.Conditional {
		level++
	}
	d.Level = min(level, 5)
	return d
}
