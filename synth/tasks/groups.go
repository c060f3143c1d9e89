package tasks

import (
	"fmt"
	"slices"
	"sort"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// More conditions a person chooses their rows by, besides a state, a flag
// and "the two most recent" (chooseGroup): the earliest ones, the three
// most recent, the ones of a year, and the ones above or below an amount
// ("my invoices whose total is over 10"). Each picks two or three rows of the list that
// only reading every row tells apart; the condition is part of the task's
// shape, so two tasks that choose differently are two tasks.

// moreGroups lists the groups of items these conditions pick.
func moreGroups(child *dbmodel.Table, items []map[string]any, rows string) []group {
	var opts []group
	for _, col := range child.Columns {
		switch {
		case dateName(col.Name) && len(items) >= 3 && !child.IsKey(col.Name) && !col.ByMachine():
			if slices.ContainsFunc(items, func(r map[string]any) bool { return !calendarDate(r[col.Name]) }) {
				continue
			}
			rs := slices.Clone(items)
			at := func(i int) string { return fmt.Sprint(sqlValue(rs[i][col.Name])) }
			sort.SliceStable(rs, func(i, j int) bool { return at(i) < at(j) })
			if at(1) < at(2) && at(0) < at(1) {
				opts = append(opts, group{rows: slices.Clone(rs[:2]), words: "two earliest " + rows, col: col.Name, value: "earliest", after: byDate(child, items, col.Name)})
			}
			if n := len(rs); n >= 4 && at(n-4) < at(n-3) && at(n-3) < at(n-2) && at(n-2) < at(n-1) {
				opts = append(opts, group{rows: slices.Clone(rs[n-3:]), words: "three most recent " + rows, col: col.Name, value: "latest3", after: byDate(child, items, col.Name)})
			}
			byYear := map[string][]map[string]any{}
			for _, r := range items {
				y := fmt.Sprint(sqlValue(r[col.Name]))[:4]
				byYear[y] = append(byYear[y], r)
			}
			for y, rs := range byYear {
				if len(rs) >= 2 && len(rs) <= 3 && len(rs) < len(items) {
					after := "from " + y
					if byDate(child, items, col.Name) != "" {
						after = "whose " + attrWords(col.Name) + " is in " + y
					}
					opts = append(opts, group{rows: rs, words: rows, after: after, col: col.Name, value: "year " + y})
				}
			}
		case numericCol(col) && additive(col.Name) && !child.IsKey(col.Name) && child.ForeignKeyOf(col.Name) == nil && !col.ByMachine() && len(items) >= 3:
			type valued struct {
				f float64
				r map[string]any
			}
			var vs []valued
			ints := true
			for _, r := range items {
				f, ok := toFloat(r[col.Name])
				if !ok {
					vs = nil
					break
				}
				ints = ints && f == float64(int64(f))
				vs = append(vs, valued{f, r})
			}
			if len(vs) < 3 {
				continue
			}
			sort.SliceStable(vs, func(i, j int) bool { return vs[i].f > vs[j].f })
			attr := attrWords(col.Name)
			for _, k := range []int{2, 3} {
				if len(vs) <= k {
					break
				}
				if vs[k-1].f > vs[k].f && vs[k].f > 0 {
					// The top k: "with a total over 5.94" (the next one's).
					var rs []map[string]any
					for _, v := range vs[:k] {
						rs = append(rs, v.r)
					}
					cut := number(vs[k].f, ints)
					opts = append(opts, group{rows: rs, words: rows, after: "whose " + attr + " is over " + cut, col: col.Name, value: "over"})
				}
				if n := len(vs); vs[n-k].f < vs[n-k-1].f {
					var rs []map[string]any
					for _, v := range vs[n-k:] {
						rs = append(rs, v.r)
					}
					cut := number(vs[n-k-1].f, ints)
					opts = append(opts, group{rows: rs, words: rows, after: "whose " + attr + " is under " + cut, col: col.Name, value: "under"})
				}
			}
		}
	}
	return opts
}

// byDate says which date "earliest", "most recent" or "from 2010" go by
// ("by hire date") where the rows have more than one: a person's two
// earliest reports by birth date are not their two earliest by hire date,
// and an instruction that does not say which is ambiguous (a player of
// round 7 chose the other one). Where the rows have one date, nothing.
func byDate(child *dbmodel.Table, items []map[string]any, col string) string {
	n := 0
	for _, c := range child.Columns {
		if dateName(c.Name) && !child.IsKey(c.Name) && !slices.ContainsFunc(items, func(r map[string]any) bool { return !calendarDate(r[c.Name]) }) {
			n++
		}
	}
	if n < 2 {
		return ""
	}
	return "by " + attrWords(col)
}
