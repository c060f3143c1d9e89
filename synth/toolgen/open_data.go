package toolgen

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// minEvidence is how many rows (or parents) must show a rule before the
// data is said to hold it: with fewer, the data shows nothing either way.
const minEvidence = 2

// OwnerRulePrefix begins CheckOpen's reason for dropping an owner rule of
// an open action on table (a rule found from the references).
func OwnerRulePrefix(table string) string { return "every " + table + " belongs to a " }

// CheckOpen keeps the rules of o (an open action on t) that every row of
// conn holds, and says why each other one was dropped: availability where
// no parent ever had two rows open at once (the intervals from the start
// column to the milestone, an unset milestone open for ever) and at least
// two parents have several rows; bounds and ownership where every row
// agrees and there are rows to agree. The schema's own rules (UNIQUE,
// CHECK) stay. The result is a copy; o is not changed.
func CheckOpen(conn *sqlite3.Conn, m *dbmodel.Model, t *dbmodel.Table, o *Open) (*Open, []string, error) {
	kept := *o
	kept.Avail, kept.Bounds, kept.Owners, kept.Owned = nil, nil, nil, nil
	var dropped []string
	tq := dbmodel.Quote(t.Name)
	if !t.Column(t.PrimaryKey[0]).Generated {
		shape, err := KeyShapeOf(conn, t)
		if err != nil {
			return nil, nil, err
		}
		if shape == nil {
			kept.Unique = nil
			return &kept, []string{fmt.Sprintf("%s: its key %s is not generated and its values have no one shape a call could make", t.Name, t.PrimaryKey[0])}, nil
		}
		kept.Key = shape
	}
	for _, r := range o.Owned {
		rc := dbmodel.Quote(r.Column)
		unset, err := dbmodel.QueryInt64(conn, "SELECT count(*) FROM "+tq+" WHERE "+rc+" IS NULL")
		if err != nil {
			return nil, nil, err
		}
		several, err := dbmodel.QueryInt64(conn, "SELECT count(*) FROM (SELECT 1 FROM "+tq+" WHERE "+rc+" IS NOT NULL GROUP BY "+rc+" HAVING count(*) > 1)")
		if err != nil {
			return nil, nil, err
		}
		switch {
		case unset > 0:
			dropped = append(dropped, fmt.Sprintf("%s%s: %d rows name none", OwnerRulePrefix(t.Name), r.Parent, unset))
		case several < minEvidence:
			dropped = append(dropped, fmt.Sprintf("%s%s: fewer than %d %s rows have several, no owner", OwnerRulePrefix(t.Name), r.Parent, minEvidence, r.Parent))
		default:
			kept.Owned = append(kept.Owned, r)
		}
	}
	start, key := dbmodel.Quote(o.Start), dbmodel.Quote(t.PrimaryKey[0])
	if o.Milestone != "" {
		ms := dbmodel.Quote(o.Milestone)
		// A milestone before its start is not the row's close.
		bad, err := dbmodel.QueryInt64(conn, "SELECT count(*) FROM "+tq+" WHERE "+ms+" < "+start)
		if err != nil {
			return nil, nil, err
		}
		if bad > 0 {
			dropped = append(dropped, fmt.Sprintf("%s: %d rows end before they start; not a row's close", o.Milestone, bad))
			kept.Milestone = ""
		}
	}
	for _, r := range o.Avail {
		if kept.Milestone == "" {
			dropped = append(dropped, fmt.Sprintf("one open %s per %s: no column says a row is open", t.Name, r.Parent))
			continue
		}
		rc, ms := dbmodel.Quote(r.Column), dbmodel.Quote(o.Milestone)
		// Each row against the latest end of the rows of its parent that
		// started before it: an overlap is two open at once.
		overlaps, err := dbmodel.QueryInt64(conn, "SELECT count(*) FROM (SELECT "+start+" AS s, max(coalesce("+ms+", '9999-12-31')) OVER (PARTITION BY "+rc+" ORDER BY "+start+", "+key+
			" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS e FROM "+tq+" WHERE "+rc+" IS NOT NULL) WHERE e > s")
		if err != nil {
			return nil, nil, err
		}
		several, err := dbmodel.QueryInt64(conn, "SELECT count(*) FROM (SELECT 1 FROM "+tq+" WHERE "+rc+" IS NOT NULL GROUP BY "+rc+" HAVING count(*) > 1)")
		if err != nil {
			return nil, nil, err
		}
		switch {
		case overlaps > 0:
			dropped = append(dropped, fmt.Sprintf("one open %s per %s: %d rows start while another of the same %s is open", t.Name, r.Parent, overlaps, r.Parent))
		case several < minEvidence:
			dropped = append(dropped, fmt.Sprintf("one open %s per %s: fewer than %d %s rows have several, the data shows nothing", t.Name, r.Parent, minEvidence, r.Parent))
		default:
			kept.Avail = append(kept.Avail, r)
		}
	}
	for _, b := range o.Bounds {
		p, v, lo, hi := dbmodel.Quote(b.Ref.Parent), "t."+dbmodel.Quote(b.Column), "p."+dbmodel.Quote(b.Min), "p."+dbmodel.Quote(b.Max)
		from := " FROM " + tq + " AS t JOIN " + p + " AS p ON p." + dbmodel.Quote(b.Ref.Key) + " = t." + dbmodel.Quote(b.Ref.Column) +
			" WHERE " + v + " IS NOT NULL AND " + lo + " IS NOT NULL AND " + hi + " IS NOT NULL"
		n, err := dbmodel.QueryInt64(conn, "SELECT count(*)"+from)
		if err != nil {
			return nil, nil, err
		}
		out, err := dbmodel.QueryInt64(conn, "SELECT count(*)"+from+" AND NOT ("+v+" BETWEEN "+lo+" AND "+hi+")")
		if err != nil {
			return nil, nil, err
		}
		switch {
		case out > 0:
			dropped = append(dropped, fmt.Sprintf("%s within %s's %s to %s: %d rows are outside", b.Column, b.Ref.Parent, b.Min, b.Max, out))
		case n < minEvidence:
			dropped = append(dropped, fmt.Sprintf("%s within %s's %s to %s: fewer than %d rows to show it", b.Column, b.Ref.Parent, b.Min, b.Max, minEvidence))
		default:
			kept.Bounds = append(kept.Bounds, b)
		}
	}
	for _, w := range o.Owners {
		from := " FROM " + tq + " AS t JOIN " + dbmodel.Quote(w.A.Parent) + " AS a ON a." + dbmodel.Quote(w.A.Key) + " = t." + dbmodel.Quote(w.A.Column) +
			" JOIN " + dbmodel.Quote(w.B.Parent) + " AS b ON b." + dbmodel.Quote(w.B.Key) + " = t." + dbmodel.Quote(w.B.Column)
		n, err := dbmodel.QueryInt64(conn, "SELECT count(*)"+from)
		if err != nil {
			return nil, nil, err
		}
		differ, err := dbmodel.QueryInt64(conn, "SELECT count(*)"+from+" WHERE a."+dbmodel.Quote(w.ACol)+" IS NOT b."+dbmodel.Quote(w.BCol))
		if err != nil {
			return nil, nil, err
		}
		switch {
		case differ > 0:
			dropped = append(dropped, fmt.Sprintf("the %s and the %s of one %s belong to one %s: %d rows differ", w.A.Parent, w.B.Parent, t.Name, w.Owner, differ))
		case n < minEvidence:
			dropped = append(dropped, fmt.Sprintf("the %s and the %s of one %s belong to one %s: fewer than %d rows to show it", w.A.Parent, w.B.Parent, t.Name, w.Owner, minEvidence))
		default:
			kept.Owners = append(kept.Owners, w)
		}
	}
	return &kept, dropped, nil
}

// KeyShapeOf is the shape of t's text key where every row's key has one
// (the same length, from 2 to 24 characters, letters and digits): the
// letters of the cases and the digits the keys use; nil when they have no
// one shape or there are too few rows to show one.
func KeyShapeOf(conn *sqlite3.Conn, t *dbmodel.Table) (*KeyShape, error) {
	k, tq := dbmodel.Quote(t.PrimaryKey[0]), dbmodel.Quote(t.Name)
	q := func(cond string) (int64, error) {
		return dbmodel.QueryInt64(conn, "SELECT count(*) FROM "+tq+" WHERE "+cond)
	}
	lengths, err := dbmodel.QueryInt64(conn, "SELECT count(DISTINCT length("+k+")) FROM "+tq)
	if err != nil {
		return nil, err
	}
	n, err := q(k + " IS NOT NULL")
	if err != nil || lengths != 1 || n < minEvidence {
		return nil, err
	}
	length, err := dbmodel.QueryInt64(conn, "SELECT length("+k+") FROM "+tq+" LIMIT 1")
	if err != nil || length < 2 || length > 24 {
		return nil, err
	}
	if bad, err := q("typeof(" + k + ") != 'text' OR " + k + " GLOB '*[^A-Za-z0-9]*'"); err != nil || bad > 0 {
		return nil, err
	}
	var alphabet string
	for _, class := range []struct{ glob, chars string }{
		{"[0-9]", "0123456789"}, {"[A-Z]", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}, {"[a-z]", "abcdefghijklmnopqrstuvwxyz"},
	} {
		has, err := q(k + " GLOB '*" + class.glob + "*'")
		if err != nil {
			return nil, err
		}
		if has > 0 {
			alphabet += class.chars
		}
	}
	return &KeyShape{Alphabet: alphabet, Length: int(length)}, nil
}

// Opens finds the open actions of m the data allows: a candidate with at
// least one rule beyond its references (availability, bounds, ownership)
// once the data has had its say; a row with no rule is a plain create.
// Dropped says, per table, which rules the data contradicted.
func Opens(conn *sqlite3.Conn, m *dbmodel.Model) (map[string]*Open, []string, error) {
	out := map[string]*Open{}
	var why []string
	for _, t := range m.Tables {
		o := OpenCandidate(m, t)
		if o == nil {
			continue
		}
		kept, dropped, err := CheckOpen(conn, m, t, o)
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", t.Name, err)
		}
		for _, d := range dropped {
			why = append(why, t.Name+": "+d)
		}
		if len(kept.Avail)+len(kept.Bounds)+len(kept.Owners) > 0 {
			out[t.Name] = kept
		}
	}
	return out, why, nil
}
