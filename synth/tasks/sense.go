package tasks

import (
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Writes that break the domain's sense (judged round 3, scored 2): a
// request a person with the data in front of them would not make, even
// when the tools allow it and the check is exact. Where unsure, the write
// is not generated.

// dated: t records something that happened on a date (a flight's date, a
// reservation's leg, an order): a column named for a date other than a
// birth date or the application's stamp.
func dated(t *dbmodel.Table) bool {
	for _, c := range t.Columns {
		l := strings.ToLower(c.Name)
		if dateName(c.Name) && !bookkeeping(c.Name) && !strings.Contains(l, "birth") && l != "dob" && !strings.Contains(l, "hire") {
			return true
		}
	}
	return false
}

// historyPrice: a price or amount on a row that records something dated
// (a leg's price, the business fare on a day the flight flew): what was
// charged then, not a value to correct by hand. A person's salary is
// theirs to change.
func historyPrice(t *dbmodel.Table, col string) bool {
	if !money(col) || person(t) {
		return false
	}
	// A line of an invoice or an order is what was sold, at the price
	// it was sold at.
	n := noun(t)
	return dated(t) || lineWord(n[strings.LastIndex(n, " ")+1:]) && len(t.ForeignKeys) > 0
}

// structuralType: a type column (flight_type one_way/round_trip) of a row
// other rows refer to: its meaning depends on those rows (a round trip
// has return legs), so flipping it alone leaves the record wrong.
func structuralType(m *dbmodel.Model, t *dbmodel.Table, col *dbmodel.Column) bool {
	if len(col.Enum) == 0 {
		return false
	}
	w := " " + words(col.Name) + " "
	if !strings.Contains(w, " type ") && !strings.Contains(w, " kind ") {
		return false
	}
	return referenced(m, t)
}

// referenced: some table refers to t.
func referenced(m *dbmodel.Model, t *dbmodel.Table) bool {
	if m == nil {
		return false
	}
	for _, o := range m.Tables {
		if o != t && refersTo(o, t) {
			return true
		}
	}
	return false
}

// schedule: a table keyed by a date (a flight's dates): a date on the
// schedule is not deleted "because it is no longer needed".
func schedule(t *dbmodel.Table) bool {
	for _, k := range t.PrimaryKey {
		if dateName(k) {
			return true
		}
	}
	return false
}

// compound: t is named for two tables it refers to (reservation_flights):
// a row of it is one side's part in the other, removed only as "take X
// out of Y".
func compound(t *dbmodel.Table) bool {
	if linked(t, "") != "" {
		return true
	}
	n := noun(t)
	for _, fk := range t.ForeignKeys {
		rn := noun(&dbmodel.Table{Name: fk.RefTable})
		if strings.HasPrefix(n, rn+" ") || strings.HasSuffix(n, " "+rn) {
			for _, fk2 := range t.ForeignKeys {
				if fk2.RefTable == fk.RefTable {
					continue
				}
				rn2 := noun(&dbmodel.Table{Name: fk2.RefTable})
				if strings.Contains(n, rn2) {
					return true
				}
			}
		}
	}
	return false
}

// sharedReference: e is reference data (a job, a region: no references of
// its own) reached from a person: "the max salary of the job of the
// employee with phone X" edits a record every holder of the job shares,
// named through a colleague.
func sharedReference(e *entity) bool {
	return e.via != "" && e.parent != nil && e.parent.table != nil && person(e.parent.table) &&
		len(e.table.ForeignKeys) == 0 && !placeTable(e.table) && !person(e.table)
}

// sameAsMe: cur is the user's job (reference data they share with others)
// and what are people like the user: "the employees with the same job as
// me", not "the employees of my job" or "How many employees does my job
// have?" (judged round 3).
func sameAsMe(cur *entity, what string) bool {
	return cur.parent != nil && cur.parent.person && sharedReference(cur) && what == plural(cur.parent.table)
}

// reference: t is reference data people hold or belong to (a job, a
// category: no references of its own, not a place, not a person).
func reference(t *dbmodel.Table) bool {
	return t != nil && len(t.ForeignKeys) == 0 && !placeTable(t) && !person(t)
}

// recorded: a time operations record as it happens (actual_departure_time,
// estimated_arrival): another row's value put on it names another day.
func recorded(col string) bool {
	w := words(col)
	return (strings.HasPrefix(w, "actual ") || strings.HasPrefix(w, "estimated ")) && dateName(col)
}

// inferredStatus: a status column whose values were read off the data
// (no CHECK gives their order).
// A declared CHECK whose order is no lifecycle (airline's 'available',
// 'landed', 'cancelled', 'delayed': an end before a beginning) counts as
// one too.
func inferredStatus(col *dbmodel.Column) bool {
	l := strings.ToLower(col.Name)
	if len(col.Enum) < 2 || !strings.Contains(l, "status") && !strings.Contains(l, "state") {
		return false
	}
	return col.EnumInferred || orderless(col.Enum)
}

// orderless: an ending state comes before an open one in values.
func orderless(values []string) bool {
	ended := false
	for _, v := range values {
		switch {
		case endState(v):
			ended = true
		case openState(v) && ended:
			return true
		}
	}
	return false
}

// endState: a status after which nothing more happens.
func endState(v string) bool {
	switch strings.ToLower(v) {
	case "landed", "arrived", "completed", "complete", "delivered", "closed", "done", "finished", "returned", "cancelled", "canceled":
		return true
	}
	return false
}

// cancelValue is the status value that cancels ("cancelled"), or "".
func cancelValue(col *dbmodel.Column) string {
	for _, v := range col.Enum {
		if l := strings.ToLower(v); strings.HasPrefix(l, "cancel") {
			return v
		}
	}
	return ""
}

// openState: a status before anything has happened (available,
// scheduled, pending, delayed, on time), which can still be cancelled.
func openState(v string) bool {
	switch strings.ReplaceAll(strings.ToLower(v), "_", " ") {
	case "available", "scheduled", "pending", "delayed", "on time", "open", "active", "booked", "confirmed", "new", "planned":
		return true
	}
	return false
}

// soldLine: e is a line of a document (an order's line) reached from
// something else on it (a product): "set the quantity of the order of
// the product X" changes a sale through the goods.
func soldLine(e *entity) bool {
	if e.parent == nil || e.parent.table == nil {
		return false
	}
	n := noun(e.table)
	head, tail, ok := strings.Cut(n, " ")
	return ok && lineWord(tail) && noun(e.parent.table) != head
}

// eventDate: col is the date t's row happened on (a rental's rental_date,
// an order's OrderDate, an invoice's date) and other rows refer to t (its
// payments, its lines): the record of when it happened, not a detail to
// correct by hand.
func eventDate(m *dbmodel.Model, t *dbmodel.Table, col string) bool {
	w := words(col)
	return dateName(col) && (w == "date" || w == noun(t)+" date") && referenced(m, t)
}

// beforeEvent: nv, a new date for col, falls before the date the row
// happened on (an order shipped before it was placed, a rental returned
// before it was rented): another row's date put on this one.
func beforeEvent(t *dbmodel.Table, row map[string]any, col string, nv any) bool {
	if !dateName(col) {
		return false
	}
	for _, c := range t.Columns {
		w := words(c.Name)
		if c.Name == col || !dateName(c.Name) || w != "date" && w != noun(t)+" date" {
			continue
		}
		at, ok := sqlValue(row[c.Name]).(string)
		v, ok2 := sqlValue(nv).(string)
		return ok && ok2 && calendarDate(at) && calendarDate(v) && v[:min(len(v), 10)] < at[:min(len(at), 10)]
	}
	return false
}

// sharedSide: child, a table named for two it refers to, is listed from
// the one it does not belong to (a flight's bookings, reservation_flights
// from flights): adding up or ranking their prices is not a question a
// person asks (judged round 3: "add up the price of the reservations of
// flight HAT160"). Lines of documents are not such tables: "how many
// units of X have been ordered" is asked.
func sharedSide(child, parent *dbmodel.Table) bool {
	if child == nil || parent == nil || !compound(child) || linked(child, "") != "" {
		return false
	}
	n := noun(child)
	if lineWord(n[strings.LastIndex(n, " ")+1:]) {
		return false
	}
	return !strings.HasPrefix(n, noun(parent)+" ")
}
