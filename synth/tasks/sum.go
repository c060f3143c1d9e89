package tasks

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// sumChildren: the total of a number over the rows that refer to cur,
// perhaps only those with one value of a closed set ("What is the total
// quantity over the order items of order ORD-1?", "Could you add up the
// total in cents of my shipped orders?"). The agent lists the rows and
// adds them up itself: arithmetic over a filtered list. Distractors: the
// number of rows, the largest single value, and the total without the
// filter.
func (w *walker) sumChildren(c *chain, cur *entity) (envpkg.Task, error) {
	list, ref, ch, err := w.childList(cur)
	if err != nil {
		return envpkg.Task{}, err
	}
	child := w.spec.Model.Table(list.Table)
	var nums []string
	for _, p := range list.Params {
		if col := child.Column(p.Column); p.Op == toolgen.OpMin && col != nil && !dateName(p.Column) && !col.Bool && (col.Kind == dbmodel.Integer || col.Kind == dbmodel.Real) && w.isMeasure(child, p.Column) {
			nums = append(nums, p.Column)
		}
	}
	key := cur.row[ch.Via.RefColumns[0]]
	if len(nums) == 0 || key == nil {
		return envpkg.Task{}, errDeadEnd
	}
	col := nums[w.rng.IntN(len(nums))]
	args := map[string]any{ref.Name: argValue(key, ref.Type), "limit": 100}
	var filter *toolgen.Param
	var value string
	if w.rng.IntN(2) == 0 {
		for i := range list.Params {
			if p := &list.Params[i]; p.Op == toolgen.OpEq && p != ref && len(p.Enum) > 1 {
				filter, value = p, p.Enum[w.rng.IntN(len(p.Enum))]
				args[p.Name] = value
				break
			}
		}
	}
	mark := len(c.calls)
	out, err := w.call(c, list.Name, args)
	if err != nil {
		return envpkg.Task{}, err
	}
	items := pageItems(out)
	m, _ := out.(map[string]any)
	if len(items) < 2 || fmt.Sprint(m["total"]) != strconv.Itoa(len(items)) {
		c.calls = c.calls[:mark] // one row is a plain question; more than a page, a chore
		return envpkg.Task{}, errDeadEnd
	}
	var sum, most float64
	ints := true
	for _, it := range items {
		var f float64
		switch v := sqlValue(it[col]).(type) {
		case int64:
			f = float64(v)
		case float64:
			f, ints = v, false
		default:
			c.calls = c.calls[:mark]
			return envpkg.Task{}, errDeadEnd // a missing value: no single total
		}
		sum += f
		most = max(most, f)
	}
	c.distractors = append(c.distractors, strconv.Itoa(len(items)), number(most, ints))
	c.countRows(child, items...)
	what := rowsPlural(w.spec.Model, child, ref.Column, cur.table)
	if filter != nil {
		if all, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT TOTAL(%s) FROM %s WHERE %s = ?`, dbmodel.Quote(col), dbmodel.Quote(child.Name), dbmodel.Quote(ref.Column)), sqlValue(key)); err == nil && float64(all) != sum {
			c.distractors = append(c.distractors, strconv.FormatInt(all, 10))
		}
		if statusWord(value) {
			what = strings.ToLower(value) + " " + what
		} else if f := flagWord(filter.Column, value); f != "" {
			what += " that are " + f
		} else if a := typeAdjective(filter.Column, value); a != "" {
			what = a + " " + what // "the one-way reservations", not "with flight type one_way"
		} else {
			what += " with " + attrWords(filter.Column) + " " + show(value)
		}
	}
	answer, err := countAnswer(number(sum, ints))
	if err != nil {
		c.calls = c.calls[:mark]
		return envpkg.Task{}, err
	}
	attr := attrWords(col)
	if rest, ok := strings.CutPrefix(attr, "total "); ok && !strings.HasPrefix(rest, "in ") {
		attr = rest // "the total baggages" summed: not "the total total"
	}
	if attr == "quantity" || strings.HasSuffix(attr, "bags") || strings.HasSuffix(attr, "items") || strings.HasSuffix(attr, "units") {
		if attr == "quantity" && !cur.person && filter == nil && (what == "lines" || what == "items") {
			// "How many items are on order 10306 in all?", not "across the
			// lines of order 10306".
			return envpkg.Task{Instruction: oneOf(w.rng,
				fmt.Sprintf("How many items are on %s in all?", cur.desc),
				fmt.Sprintf("Could you add up how many items %s comes to?", cur.desc)),
				Answer: answer}, nil
		}
		if attr != "quantity" {
			// "How many checked bags are there in all across my reservations?"
			return envpkg.Task{Instruction: fmt.Sprintf("How many %s are there in all across %s?", attr, rowsOf(what, ref.Column, cur)), Answer: answer}, nil
		}
		// "How many items are on order 10386 in all?", not "the sum of
		// the quantity of the details".
		if n := noun(cur.table); !cur.person && !strings.HasPrefix(words(child.Name), n+" ") && strings.HasPrefix(cur.desc, "the "+n+" ") && filter == nil && pastOf(what) != "" {
			// The lines of orders, seen from a product: "How many units of
			// the product X have been ordered in all?", not "items across
			// the order details of the product X" (judged round 3).
			return envpkg.Task{Instruction: oneOf(w.rng,
				fmt.Sprintf("How many units of %s have been %s in all?", cur.desc, pastOf(what)),
				fmt.Sprintf("Could you tell me how many units of %s have been %s altogether?", cur.desc, pastOf(what))),
				Answer: answer}, nil
		}
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("How many items are there in all across %s?", rowsOf(what, ref.Column, cur)),
			fmt.Sprintf("Could you add up how many items %s come to?", rowsOf(what, ref.Column, cur))),
			Answer: answer}, nil
	}
	if attr == "total" {
		// "What is the total of my invoices?", not "the total total".
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("What is the total of %s, all together?", rowsOf(what, ref.Column, cur)),
			fmt.Sprintf("Could you add up the totals of %s for me?", rowsOf(what, ref.Column, cur))),
			Answer: answer}, nil
	}
	if (attr == "amount" || attr == "amount paid") && strings.HasSuffix(noun(child), "payment") && rowsOf(what, ref.Column, cur) == "my "+what && filter == nil {
		return envpkg.Task{Instruction: oneOf(w.rng, "How much have I paid in all?", "Could you add up how much I have paid altogether?"), Answer: answer}, nil
	}
	if (attr == "amount" || attr == "amount paid") && strings.HasSuffix(noun(child), "payment") {
		// "How much do the payments of my visa card come to in all?", not
		// "the sum of the amount of the payments of" (judged round 3).
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("How much do %s come to in all?", rowsOf(what, ref.Column, cur)),
			fmt.Sprintf("How much has been paid in all across %s?", rowsOf(what, ref.Column, cur))),
			Answer: answer}, nil
	}
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("What is the total %s of %s?", attr, rowsOf(what, ref.Column, cur)),
		fmt.Sprintf("Could you add up the %s of %s for me?", attr, rowsOf(what, ref.Column, cur)),
		fmt.Sprintf("I need the total %s of %s %s.", attr, rowsOf(what, ref.Column, cur), oneOf(w.rng, readMotives...))),
		Answer: answer}, nil
}

// number renders a total: an integer as one, else the shortest decimal
// after rounding away the float noise of the addition (20.79, not
// 20.790000000000003).
func number(f float64, ints bool) string {
	if ints {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)
}

// additive: an amount of money whose sum over rows is a figure someone
// asks for (the freight of a shipper's orders, the total of my invoices,
// a department's salaries), unlike unit prices or quantities across
// lines, levels, rates and percentages.
func additive(col string) bool {
	w := " " + words(col) + " "
	for _, s := range []string{" unit ", " level ", " discount ", " percent ", " rate ", " min ", " max ", " per "} {
		if strings.Contains(w, s) {
			return false
		}
	}
	return dbmodel.ContainsAny(w, " total ", " amount ", " freight ", " cost ", " fee ", " charge ", " salary ", " paid ", " revenue ", " balance ", " price ", " quantity ")
}

// pastOf is what happens to a thing on the rows named what: "ordered" on
// orders, "sold" on invoices; "" when it cannot be told.
func pastOf(what string) string {
	switch strings.TrimSuffix(what, "s") {
	case "order":
		return "ordered"
	case "invoice", "sale":
		return "sold"
	case "rental":
		return "rented"
	}
	return ""
}

// typeAdjective is a value of a type column said before the noun: a
// two-word snake_case value hyphenated ("one_way" → "one-way"), a one-word
// lower-case one as is; "" for other columns and values.
func typeAdjective(col, value string) string {
	w := " " + words(col) + " "
	if !strings.Contains(w, " type ") && !strings.Contains(w, " kind ") {
		return ""
	}
	if parts := strings.Split(value, "_"); len(parts) == 2 && statusWord(parts[0]+parts[1]) {
		return parts[0] + "-" + parts[1]
	}
	if statusWord(value) {
		return value
	}
	return ""
}
