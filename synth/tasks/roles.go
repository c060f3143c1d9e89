package tasks

import (
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// How a reference reads: by the role its column names ("origin",
// "ReportsTo", "SupportRepId") when that is not just the table it leads to,
// and without the rows a person leaves out (a link row, an address).

// childDescVia names a child row reached through the reference fkCol to
// parent (the row p): as childDesc when the column is named for the parent
// table ("customer_id"), else with the role the column names, in words:
// "the most recent flight departing from the airport MIA" (origin), "the
// first flight arriving at ..." (destination), "the only employee who
// reports to ..." (ReportsTo), "the customer named X with me as their
// support rep" (SupportRepId).
func childDescVia(child *dbmodel.Table, fkCol string, parent *dbmodel.Table, d distinction, p *entity) string {
	role := roleFor(fkCol, parent)
	if ownRole(role, parent) {
		// customer_id, flight_number: the column names the row itself.
		return childDesc(child, d, p)
	}
	n := "the " + d.pre + noun(child) + d.post
	who := p.desc
	if p.person {
		who = "me"
	}
	switch {
	case slices.Contains(departRoles, role):
		return n + " departing from " + who
	case slices.Contains(arriveRoles, role):
		return n + " arriving at " + who
	case role == "ship via":
		return n + " assigned to " + who // ShipVia: shipped or not yet (howManyWith)
	case strings.HasSuffix(role, " to"):
		rel := "that"
		if person(child) {
			rel = "who"
		}
		return n + " " + rel + " " + role + " " + who
	}
	if p.person {
		// "my customer Jack Smith" (SupportRepId), "my store"
		// (manager_staff_id), not "the customer Jack Smith with me as
		// their support rep".
		return "my " + strings.TrimPrefix(n, "the ")
	}
	if role == "manager" {
		return n + " managed by " + who
	}
	poss := "its"
	if person(child) {
		poss = "their"
	}
	return n + " with " + who + " as " + poss + " " + role
}

// linked: t is a link table (its key is references only: playlist_track,
// film_category); it returns the table its other reference than fkCol
// leads to ("" for another table, or for fkCol "" any link table's first
// reference).
func linked(t *dbmodel.Table, fkCol string) string {
	if len(t.PrimaryKey) < 2 {
		return ""
	}
	other := ""
	for _, k := range t.PrimaryKey {
		fk := t.ForeignKeyOf(k)
		if fk == nil {
			return ""
		}
		if k != fkCol && other == "" {
			other = fk.RefTable
		}
	}
	return other
}

// rowsOf is "the WHAT of cur" for the rows referring to cur through fkCol,
// with the role the column names when it is not cur's table: "the
// employees who report to Nancy Edwards" (ReportsTo), "the flights
// departing from ..." (origin), "the customers with me as their support
// rep".
func rowsOf(what, fkCol string, cur *entity) string {
	if cur.table == nil {
		return of(what, cur)
	}
	if sameAsMe(cur, what) {
		// "everyone with my job, me included": whether the user counts
		// was read two ways (judged round 3).
		return "everyone with my " + noun(cur.table) + " (me included)"
	}
	if reference(cur.table) && !cur.person && !strings.HasPrefix(cur.desc, "my ") && peopleWord(what) {
		return "the " + what + " with " + cur.desc // "the employees with the job X"
	}
	if workplace(cur.table) && !cur.person && !strings.HasPrefix(cur.desc, "my ") && peopleWord(what) && ownRole(roleFor(fkCol, cur.table), cur.table) {
		return "the " + what + " in " + cur.desc // "the employees in the department X"
	}
	role := roleFor(fkCol, cur.table)
	if ownRole(role, cur.table) {
		return of(what, cur)
	}
	who := cur.desc
	if cur.person {
		who = "me"
	}
	switch {
	case slices.Contains(departRoles, role):
		return "the " + what + " departing from " + who
	case slices.Contains(arriveRoles, role):
		return "the " + what + " arriving at " + who
	case role == "ship via":
		return "the " + what + " assigned to " + who
	}
	if verb, ok := strings.CutSuffix(role, " to"); ok && !strings.Contains(verb, " ") && strings.HasSuffix(verb, "s") {
		return "the " + what + " who " + strings.TrimSuffix(verb, "s") + " to " + who
	}
	if verb, ok := strings.CutSuffix(role, " by"); ok && verb != "" && !strings.Contains(verb, " ") {
		return "the " + what + " " + role + " " + who // "the orders handled by ..."
	}
	if role == "manager" {
		// "the employees Gerald Cambrault manages", not "with the
		// employee Gerald Cambrault as their manager".
		if cur.person {
			return "the " + what + " I manage"
		}
		return "the " + what + " managed by " + who
	}
	if cur.person {
		return "my " + what // "my customers"
	}
	return "the " + what + " with " + who + " as their " + role
}

// thin: every column of t but its key is a reference or a bookkeeping
// stamp (sakila's inventory: a film in a store): a row no one speaks of.
func thin(t *dbmodel.Table) bool {
	refs := 0
	for _, c := range t.Columns {
		switch {
		case t.ForeignKeyOf(c.Name) != nil:
			refs++
		case t.IsKey(c.Name) || bookkeeping(c.Name):
		default:
			return false
		}
	}
	return refs >= 2
}

// ownRole: a reference column's role is only its table's name ("customer",
// "flight number", "staff", "payment" for a payment method): it says
// nothing the plain "of" does not.
func ownRole(role string, t *dbmodel.Table) bool {
	n := noun(t)
	return role == "" || role == n || role == words(t.Name) || role == words(t.Singular()) ||
		strings.HasPrefix(role, n+" ") || strings.HasPrefix(n, role+" ")
}

// Roles of a reference to a place that say which way a trip goes.
var (
	departRoles = []string{"origin", "source", "from", "departure", "origin airport", "departure airport"}
	arriveRoles = []string{"destination", "dest", "to", "arrival", "destination airport", "arrival airport"}
)

// roleWords is the role a reference column names, in words: "SupportRepId"
// → "support rep", "origin" → "origin", "customer_id" → "customer".
func roleWords(col string) string {
	return strings.TrimSuffix(strings.TrimSuffix(words(col), " id"), " key")
}

// roleFor is the role of a reference to parent: roleWords, less the
// parent's table name after the role ("manager_staff_id" → "manager").
func roleFor(col string, parent *dbmodel.Table) string {
	if keyNamed(col, parent) {
		return ""
	}
	role := roleWords(col)
	for _, n := range []string{words(parent.Name), words(parent.Singular())} {
		if r, ok := strings.CutSuffix(role, " "+n); ok && r != "" {
			return r
		}
	}
	return role
}

// keyNamed: col has the name of parent's own key (accounts keyed by a
// customer number, and the balances that share it): the reference is the
// parent itself, whatever noun the key's name holds, not a role of it.
func keyNamed(col string, parent *dbmodel.Table) bool {
	return len(parent.PrimaryKey) == 1 && !parent.RowID && strings.EqualFold(col, parent.PrimaryKey[0])
}

// parentDesc names the row a reference leads to: "the customer of order
// ORD-1", "my city", "the staff who checked out the only loan of X", "the
// employee Nancy Edwards reports to".
func parentDesc(role string, parent *dbmodel.Table, cur *entity) string {
	if r, ok := strings.CutSuffix(role, "_by"); ok && r != "" {
		return "the " + noun(parent) + " who " + words(r) + " " + cur.desc
	}
	if cur.table != nil && linked(cur.table, "") != "" && !cur.person {
		// A link row (a playlist's track) is no thing of its own to a
		// person: "the playlist of the track X".
		if strings.HasPrefix(cur.desc, "the "+noun(parent)+" of ") {
			return cur.desc // already named for it: "the playlist of the track X"
		}
		if rest, ok := strings.CutPrefix(cur.desc, "the "+noun(cur.table)+" of "); ok {
			return "the " + noun(parent) + " of " + rest
		}
	}
	if cur.table != nil && !cur.person && cur.parent != nil && cur.parent.table != nil {
		// "my past job" (job_history) is a job already: "the title of my
		// past job", not "the title of the job of my past job".
		if n, _ := rowWords(nil, cur.table, "", cur.parent.table); n != noun(cur.table) && strings.HasSuffix(n, " "+noun(parent)) && strings.Contains(cur.desc, n) {
			return cur.desc
		}
	}
	if cur.table != nil && thin(cur.table) && !cur.person {
		if cur.parent != nil && cur.parent.table != nil {
			// "the copy of the film X" (inventory): "the store of the film X"
			if n, _ := rowWords(nil, cur.table, "", cur.parent.table); n != noun(cur.table) {
				if rest, ok := strings.CutPrefix(cur.desc, "the "+n+" of "); ok {
					return "the " + noun(parent) + " of " + rest
				}
			}
		}
		// A row that only links others (a rental's inventory copy) is
		// left out: "the film of rental 586", not "the film of the
		// inventory of rental 586".
		if rest, ok := strings.CutPrefix(cur.desc, "the "+noun(cur.table)+" of "); ok {
			return "the " + noun(parent) + " of " + rest
		}
	}
	if cur.table != nil && !cur.person && person(parent) && ownRole(roleWords(role), parent) && document(cur.table) && !strings.Contains(cur.desc, " of ") {
		// "the customer on invoice 75", not "the customer of invoice 75".
		return "the " + noun(parent) + " on " + cur.desc
	}
	rw := roleWords(role)
	if rw == "ship via" {
		rw = noun(parent) // Northwind's ShipVia: "the shipper of order 10353"
	}
	if n := noun(parent); strings.HasPrefix(n, rw+" ") {
		// The role is the table's name cut short ("payment" for a payment
		// method): the full name says which row it is.
		rw = n
	}
	if cur.table != nil && !cur.person && strings.HasPrefix(rw, noun(cur.table)+" ") {
		// "the payment method of that payment", not of's "the method of"
		// (which drops an attribute's table name: "the name of the region").
		if _, place := placeOwner(cur); !place {
			return "the " + rw + " of " + cur.desc
		}
	}
	if verb, ok := strings.CutSuffix(rw, " to"); ok && verb != "" && !strings.Contains(verb, " ") {
		if cur.person {
			return "the " + noun(parent) + " I " + strings.TrimSuffix(verb, "s") + " to"
		}
		return "the " + noun(parent) + " " + cur.desc + " " + verb + " to"
	}
	return of(rw, cur)
}

// document: t's rows are papers a person is named on (an invoice, an
// order, a receipt).
func document(t *dbmodel.Table) bool {
	switch noun(t) {
	case "invoice", "order", "receipt", "bill":
		return true
	}
	return false
}
