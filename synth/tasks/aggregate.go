package tasks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Questions over the rows that refer to the current one, answered with the
// list tools' filters and sorting (so that ground truths exercise them, not
// only lookups): "how many orders of ... have status shipped?", "which
// order of ... has the highest total?".

// childList picks a reference into cur's table and returns the list tool
// of the referring table with its parameter for that reference.
func (w *walker) childList(cur *entity) (*toolgen.Tool, *toolgen.Param, *toolgen.Tool, error) {
	var via []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == cur.table.Name && countable(w.spec.Model.Table(t.Table), cur.table) {
			via = append(via, t)
		}
	}
	if len(via) == 0 {
		return nil, nil, nil, errDeadEnd
	}
	ch := via[w.rng.IntN(len(via))]
	if sharedSide(w.spec.Model.Table(ch.Table), cur.table) {
		return nil, nil, nil, errDeadEnd
	}
	list := w.toolFor(toolgen.List, ch.Table)
	if list == nil {
		return nil, nil, nil, errDeadEnd
	}
	for i := range list.Params {
		if p := &list.Params[i]; p.Op == toolgen.OpEq && p.Column == ch.Via.Columns[0] {
			return list, p, ch, nil
		}
	}
	return nil, nil, nil, errDeadEnd // the filter was cut by MaxFilters
}

// countFiltered: how many rows referring to cur have a given enum value.
func (w *walker) countFiltered(c *chain, cur *entity) (envpkg.Task, error) {
	list, ref, ch, err := w.childList(cur)
	if err != nil {
		return envpkg.Task{}, err
	}
	var enums []*toolgen.Param
	for i := range list.Params {
		if p := &list.Params[i]; p.Op == toolgen.OpEq && p != ref && len(p.Enum) > 0 {
			enums = append(enums, p)
		}
	}
	if len(enums) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	e := enums[w.rng.IntN(len(enums))]
	key := cur.row[ch.Via.RefColumns[0]]
	if key == nil {
		return envpkg.Task{}, errDeadEnd
	}
	// Prefer a value that occurs (a count of 0 is a fine answer, but a
	// dull one).
	value := e.Enum[w.rng.IntN(len(e.Enum))]
	if strings.TrimSpace(value) == "" {
		return envpkg.Task{}, errDeadEnd // "have size \"\"" is not a question
	}
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ? AND %s = ?`, dbmodel.Quote(list.Table), dbmodel.Quote(ref.Column), dbmodel.Quote(e.Column)), sqlValue(key), value)
	if err != nil {
		return envpkg.Task{}, err
	}
	if n == 0 && w.rng.IntN(2) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	mark := len(c.calls)
	out, err := w.call(c, list.Name, map[string]any{ref.Name: argValue(key, ref.Type), e.Name: value})
	if err != nil {
		return envpkg.Task{}, err
	}
	m, _ := out.(map[string]any)
	answer, err := countAnswer(fmt.Sprint(m["total"]))
	if err != nil {
		c.calls = c.calls[:mark]
		return envpkg.Task{}, err
	}
	child := w.spec.Model.Table(list.Table)
	_, what := rowWords(w.spec.Model, child, ref.Column, cur.table)
	role := by(ref.Column, cur)
	if role == "" && !strings.Contains(ch.Name, "_of_") {
		return envpkg.Task{}, errDeadEnd // a reference named for a role: countChildren words those
	}
	// Distractors: the counts for the other values, which an agent that
	// ignored the filter, or used another, would report.
	for _, other := range e.Enum {
		if other == value {
			continue
		}
		n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ? AND %s = ?`, dbmodel.Quote(list.Table), dbmodel.Quote(ref.Column), dbmodel.Quote(e.Column)), sqlValue(key), other)
		if err != nil {
			return envpkg.Task{}, err
		}
		c.distractors = append(c.distractors, fmt.Sprint(n))
	}
	var instr string
	switch yn := strings.ToLower(value); {
	case what == "dates" && !cur.person && !strings.HasPrefix(cur.desc, "my "):
		// A flight's dates: "On how many dates is flight HAT275 listed
		// as landed?", not "How many of the dates of flight HAT275 are
		// landed?".
		instr = fmt.Sprintf("On how many dates is %s listed as %s?", cur.desc, strings.ReplaceAll(value, "_", " "))
	case yn == "yes" || yn == "no":
		// insurance yes/no: "How many of my reservations have insurance?"
		not := map[bool]string{true: "", false: "do not "}[yn == "yes"]
		instr = fmt.Sprintf("How many of %s %shave %s?", rowsOf(what, ref.Column, cur), not, attrWords(e.Column))
	case role != "" && statusWord(value):
		instr = fmt.Sprintf("How many %s %s are %s?", what, role, strings.ToLower(value))
	case statusWord(value):
		instr = oneOf(w.rng, fmt.Sprintf("How many %s %s %s?", strings.ToLower(value), what, has(cur)),
			fmt.Sprintf("How many of %s are %s?", rowsOf(what, ref.Column, cur), strings.ToLower(value)))
	case typeAdjective(e.Column, value) != "":
		// "How many of my reservations are one-way?", not "have flight
		// type one way".
		instr = fmt.Sprintf("How many of %s are %s?", rowsOf(what, ref.Column, cur), typeAdjective(e.Column, value))
	case flagWord(e.Column, value) != "":
		// Northwind's Discontinued 0/1: "How many of ... are discontinued?"
		instr = fmt.Sprintf("How many of %s are %s?", rowsOf(what, ref.Column, cur), flagWord(e.Column, value))
	default:
		shown := show(value)
		if snakeWord.MatchString(value) {
			shown = strings.ReplaceAll(value, "_", " ") // "have cabin basic economy"
		}
		instr = fmt.Sprintf("How many of %s have %s %s?", rowsOf(what, ref.Column, cur), attrWords(e.Column), shown)
	}
	return envpkg.Task{
		Instruction: instr,
		Answer:      answer,
	}, nil
}

// topChild: the row referring to cur with the highest (or lowest) value of
// a number or date column, named by its label, or the value itself.
func (w *walker) topChild(c *chain, cur *entity) (envpkg.Task, error) {
	list, ref, ch, err := w.childList(cur)
	if err != nil {
		return envpkg.Task{}, err
	}
	sortBy := list.Param("sort_by")
	if sortBy == nil {
		return envpkg.Task{}, errDeadEnd
	}
	// Sortable range columns: those with a min_ filter.
	var cols []string
	byJSON := map[string]string{}
	for _, p := range list.Params {
		if p.Op == toolgen.OpMin && !position(p.Column) && !recorded(p.Column) {
			js := strings.TrimPrefix(p.Name, "min_")
			cols = append(cols, js)
			byJSON[js] = p.Column
		}
	}
	sort.Strings(cols)
	if len(cols) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	js := cols[w.rng.IntN(len(cols))]
	col := byJSON[js]
	desc := w.rng.IntN(3) != 0
	key := cur.row[ch.Via.RefColumns[0]]
	if key == nil {
		return envpkg.Task{}, errDeadEnd
	}
	mark := len(c.calls)
	out, err := w.call(c, list.Name, map[string]any{ref.Name: argValue(key, ref.Type), "sort_by": js, "descending": desc, "limit": 2})
	if err != nil {
		return envpkg.Task{}, err
	}
	items := pageItems(out)
	child := w.spec.Model.Table(list.Table)
	if m, _ := out.(map[string]any); fmt.Sprint(m["total"]) != "" {
		if n, err := strconv.Atoi(fmt.Sprint(m["total"])); err == nil && n > 25 {
			// "Which of the 8,000 rentals of the staff member Jon has the
			// latest return date?" is a query, not a question: the few
			// tracks of an album, the orders of a customer.
			c.calls = c.calls[:mark]
			return envpkg.Task{}, errDeadEnd
		}
	}
	for _, it := range items {
		if v, ok := it[col].(string); ok && strings.Contains(v, "+") {
			// "01:30:00+1" (the next day) sorts before "23:00:00" as text.
			c.calls = c.calls[:mark]
			return envpkg.Task{}, errDeadEnd
		}
	}
	if len(items) < 2 || items[0][col] == nil || fmt.Sprint(items[0][col]) == fmt.Sprint(items[1][col]) || !sayable(items[0][col]) {
		c.calls = c.calls[:mark] // a tie or too few rows: no single answer
		return envpkg.Task{}, errDeadEnd
	}
	most := "highest"
	if !desc {
		most = "lowest"
	}
	if dateName(col) {
		most = map[bool]string{true: "latest", false: "earliest"}[desc]
	} else if countWords(attrWords(col)) {
		// "has the most units in stock", not "the highest units in stock".
		most = map[bool]string{true: "most", false: "fewest"}[desc]
	}
	colWords := attrWords(col)
	if countWords(colWords) {
		colWords = strings.TrimPrefix(colWords, "total ") // "the most checked bags", not "the most total checked bags"
	}
	if measured(col) {
		// "Which of the tracks of the album X is the longest?", not "has
		// the highest milliseconds".
		big, small := "longest", "shortest"
		if l := strings.ToLower(col); strings.Contains(l, "bytes") || strings.Contains(l, "size") || strings.Contains(l, "weight") {
			big, small = "largest", "smallest"
		}
		if label := child.Label; label != "" && label != col && items[0][label] != nil && sayable(items[0][label]) {
			if items[1][label] != nil {
				c.distractors = append(c.distractors, fmt.Sprint(sqlValue(items[1][label])))
			}
			return envpkg.Task{
				Instruction: fmt.Sprintf("Which of %s is the %s? I need its %s.", rowsOf(rowsPlural(w.spec.Model, child, ref.Column, cur.table), ref.Column, cur), map[bool]string{true: big, false: small}[desc], attrOf(child, label)),
				Answer:      c.answer(child, label, items[0][label]),
			}, nil
		}
	}
	one, what := rowWords(w.spec.Model, child, ref.Column, cur.table)
	its := "its"
	if person(child) {
		its = "their" // "Tell me their email", for a person
	}
	// created_at: "which one was created most recently", not "the
	// latest created at".
	verb, stamp := strings.CutSuffix(strings.ToLower(col), "_at")
	stamp = stamp && strings.HasSuffix(verb, "ed") && !strings.Contains(verb, "_")
	when := map[bool]string{true: "most recently", false: "first"}[desc]
	// The date a row happened on (a payment's payment_date, an order's
	// OrderDate): "the most recent payment of X", not "the latest payment
	// date among the payments of X".
	ownDate := dateName(col) && one != "date" && (attrWords(col) == "date" || attrWords(col) == one+" date")
	rows := rowsOf(what, ref.Column, cur)
	latest := map[bool]string{true: "most recent", false: "first"}[desc]
	if label := child.Label; label != "" && label != col && items[0][label] != nil && sayable(items[0][label]) {
		if v, ok := sqlValue(items[0][label]).(string); ok && slugID.MatchString(v) {
			c.calls = c.calls[:mark] // "I need its id": credit_card_9588108 is no answer a person wants
			return envpkg.Task{}, errDeadEnd
		}
		if items[1][label] != nil {
			c.distractors = append(c.distractors, fmt.Sprint(sqlValue(items[1][label])))
		}
		if l := strings.ToLower(col); (strings.Contains(l, "birth") || l == "dob") && person(child) {
			// "who is the youngest", not "which one has the latest birth date".
			return envpkg.Task{
				Instruction: fmt.Sprintf("Among %s, who is the %s? Tell me %s %s.", rows, map[bool]string{true: "youngest", false: "oldest"}[desc], its, attrOf(child, label)),
				Answer:      c.answer(child, label, items[0][label]),
			}, nil
		}
		if ownDate {
			return envpkg.Task{
				Instruction: oneOf(w.rng, fmt.Sprintf("Which of %s is the %s? I need %s %s.", rows, latest, its, attrOf(child, label)),
					fmt.Sprintf("Among %s, which is the %s one? Tell me %s %s.", rows, latest, its, attrOf(child, label))),
				Answer: c.answer(child, label, items[0][label]),
			}, nil
		}
		if stamp {
			return envpkg.Task{
				Instruction: fmt.Sprintf("Among %s, which one was %s %s? Tell me %s %s.", rowsOf(what, ref.Column, cur), verb, when, its, attrOf(child, label)),
				Answer:      c.answer(child, label, items[0][label]),
			}, nil
		}
		return envpkg.Task{
			Instruction: oneOf(w.rng, fmt.Sprintf("Among %s, which one has the %s %s? Tell me %s %s.", rowsOf(what, ref.Column, cur), most, colWords, its, attrOf(child, label)),
				fmt.Sprintf("Which of %s has the %s %s? I need %s %s.", rowsOf(what, ref.Column, cur), most, colWords, its, attrOf(child, label))),
			Answer: c.answer(child, label, items[0][label]),
		}, nil
	}
	c.distractors = append(c.distractors, fmt.Sprint(sqlValue(items[1][col])))
	if ownDate && strings.HasPrefix(rows, "the "+what+" ") {
		return envpkg.Task{
			Instruction: fmt.Sprintf("When was the %s %s?", latest, one+strings.TrimPrefix(rows, "the "+what)),
			Answer:      c.answer(child, col, items[0][col]),
		}, nil
	}
	if ownDate && rows == "my "+what {
		return envpkg.Task{Instruction: fmt.Sprintf("When was my %s %s?", latest, one), Answer: c.answer(child, col, items[0][col])}, nil
	}
	if pluralize(attrWords(col)) == what && !cur.person {
		// The rows are the values (a flight's dates): "What is the latest
		// date on record for flight HAT296?", not "the latest date among
		// the dates of flight HAT296".
		return envpkg.Task{
			Instruction: fmt.Sprintf("What is the %s %s on record for %s?", most, attrWords(col), cur.desc),
			Answer:      c.answer(child, col, items[0][col]),
		}, nil
	}
	return envpkg.Task{
		Instruction: fmt.Sprintf("What is the %s %s among %s?", most, attrWords(col), rowsOf(what, ref.Column, cur)),
		Answer:      c.answer(child, col, items[0][col]),
	}, nil
}

func dateName(col string) bool {
	l := strings.ToLower(col)
	return strings.Contains(l, "date") || strings.HasSuffix(l, "_at") || strings.Contains(l, "time") || strings.HasSuffix(l, "_on") || l == "dob" || strings.Contains(l, "birth")
}

// flagWord is a 0/1 column named for a state ("discontinued") as the
// state or its negation: "discontinued", "not discontinued"; "" for other
// columns and values.
func flagWord(col, value string) string {
	a := attrWords(col)
	if strings.Contains(a, " ") || !strings.HasSuffix(a, "ed") {
		return ""
	}
	switch value {
	case "1", "true":
		return a
	case "0", "false":
		return "not " + a
	}
	return ""
}

// countWords: a column that counts things, named by their plural ("units
// in stock", "units on order"): ranked by "most", not "highest".
func countWords(attr string) bool {
	head, _, _ := strings.Cut(attr, " ")
	last := attr[strings.LastIndex(attr, " ")+1:]
	for _, w := range []string{head, last} {
		switch w {
		case "units", "items", "copies", "seats", "pieces", "bags":
			return true
		}
	}
	return false
}

// position: a column that numbers a row among its siblings (a leg, a seat,
// a line number): ranking by it ("the lowest leg") asks nothing.
func position(col string) bool {
	l := strings.ToLower(col)
	return dbmodel.ContainsAny(l, "leg", "seat", "seq", "position", "line", "room", "floor", "number", "sort", "rank")
}
