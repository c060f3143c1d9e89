package tasks

import (
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// What rows are called seen from the row they belong to. A schema names a
// table for how it is stored ("reservation_flights", "Order Details",
// "job_history"); a person names its rows for what they are to the row
// they start from (judged round 3: "How many reservation flights does
// flight HAT258 have?", "the order details of the product X" read as
// database talk). General rules first, then a small lexicon for the few
// words no rule can know:
//
//   - a table named for two tables it refers to (reservation_flights:
//     reservations and flights) is, from one of them, the other: a flight's
//     reservations, a reservation's flights;
//   - a table of the lines of another (Order Details, InvoiceLine,
//     order_items) is, from its parent, its "lines" ("items" when the table
//     says so), and from anything else it refers to, the parent's rows: the
//     orders of a product;
//   - a table of someone's past ("job_history") is their past jobs;
//   - inventory rows are copies (the lexicon below).

// rowWords is the singular and plural noun of the rows of child that refer
// to parent through fkCol.
func rowWords(m *dbmodel.Model, child *dbmodel.Table, fkCol string, parent *dbmodel.Table) (string, string) {
	if parent != nil && !pureLink(child) {
		// Order Details seen from its order: its lines, though its key
		// is the order and the product.
		if rest, ok := strings.CutPrefix(noun(child), noun(parent)+" "); ok && lineWord(rest) {
			return lineNoun(rest)
		}
	}
	if other := linked(child, fkCol); other != "" && m != nil {
		if o := m.Table(other); o != nil {
			return noun(o), plural(o)
		}
	}
	n := noun(child)
	if parent != nil {
		pn := noun(parent)
		if rest, ok := strings.CutPrefix(n, pn+" "); ok {
			// The lines of an order; a reservation's flights.
			if lineWord(rest) {
				return lineNoun(rest)
			}
			return rest, pluralize(rest)
		}
		if rest, ok := strings.CutSuffix(n, " "+pn); ok {
			// A flight's reservations (reservation_flights).
			return rest, pluralize(rest)
		}
		if head, tail, ok := strings.Cut(n, " "); ok && lineWord(tail) && refersToNoun(child, head) {
			// The lines of orders, seen from a product: its orders.
			return head, pluralize(head)
		}
	}
	if s, p, ok := lexicon(n); ok {
		return s, p
	}
	return n, plural(child)
}

// lineWord: the word a schema uses for the lines of a document.
func lineWord(w string) bool {
	switch w {
	case "detail", "details", "line", "lines", "item", "items", "entry", "entries":
		return true
	}
	return false
}

// lineNoun: "item" stays an item; a detail, a line or an entry is a line.
func lineNoun(w string) (string, string) {
	if strings.HasPrefix(w, "item") {
		return "item", "items"
	}
	return "line", "lines"
}

// refersToNoun: child has a reference to a table whose noun is n.
func refersToNoun(child *dbmodel.Table, n string) bool {
	for _, fk := range child.ForeignKeys {
		if noun(&dbmodel.Table{Name: fk.RefTable}) == n {
			return true
		}
	}
	return false
}

// lexicon holds the table nouns whose everyday word no rule can derive.
func lexicon(n string) (string, string, bool) {
	switch {
	case n == "inventory":
		return "copy", "copies", true // sakila: a copy of a film in a store
	case strings.HasSuffix(n, " history"):
		// job_history: the jobs someone held before ("my previous job").
		w := strings.TrimSuffix(n, " history")
		return "previous " + w, "previous " + pluralize(w), true
	}
	return "", "", false
}

// maintained: the database keeps t itself (a trigger writes it: sakila's
// film_text mirrors film): no task starts at it, reaches it or counts it.
func maintained(t *dbmodel.Table) bool {
	return t != nil && t.MaintainedBy != ""
}

// rowsPlural is rowWords' plural.
func rowsPlural(m *dbmodel.Model, child *dbmodel.Table, fkCol string, parent *dbmodel.Table) string {
	_, p := rowWords(m, child, fkCol, parent)
	return p
}

// countable: the rows of child that refer to parent may be listed, counted
// or ranked from parent in a request. Not a table the database keeps
// itself; and someone's history only from that person ("my past jobs"):
// "the latest start date among the job history entries of my department"
// was read two ways (the entries tagged with the department, or those of
// the people in it).
func countable(child, parent *dbmodel.Table) bool {
	if child == nil || maintained(child) {
		return false
	}
	if strings.HasSuffix(strings.ToLower(child.Name), "history") && !person(parent) {
		return false
	}
	return true
}

// peopleWord: what names people ("employees", "customers").
func peopleWord(what string) bool {
	return person(&dbmodel.Table{Name: what})
}

// kindTable: a lookup of kinds (a media type, a payment type): a row is
// not named by its kind ("the track X of the media type Y"; judged round
// 3), though its rows may be counted.
func kindTable(t *dbmodel.Table) bool {
	n := noun(t)
	return n == "type" || strings.HasSuffix(n, " type") || strings.HasSuffix(n, " kind")
}

// namedByReference is the reference of child, other than the one via
// fkCol it is listed by, whose table names its rows in what (a
// product's order lines are its "orders"): a count of them counts that
// table's rows, each once. nil where the rows are called by their own
// name. Only a one-column reference: its value is the row counted.
func namedByReference(m *dbmodel.Model, child *dbmodel.Table, fkCol, what string) *dbmodel.ForeignKey {
	for i, fk := range child.ForeignKeys {
		if len(fk.Columns) != 1 || fk.Columns[0] == fkCol || fk.RefTable == child.Name {
			continue
		}
		o := m.Table(fk.RefTable)
		if o == nil {
			continue
		}
		if what == plural(o) || what == pluralize(noun(o)) {
			return &child.ForeignKeys[i]
		}
	}
	return nil
}
