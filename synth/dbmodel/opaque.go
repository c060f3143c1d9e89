package dbmodel

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Values no person says, and values the data computes. A GUID, a hash or a
// z-score of fifteen digits identifies nothing to a person and is never
// typed by one; a column that is a function of other columns (a total, a
// ratio, a price in another unit) changes when they change, not by hand.
// Both are read from the data's shape, never from a column's name: tasks
// neither name a row by them nor ask to set them.

// opaqueSample is how many values of a column the shape is judged on.
const opaqueSample = 200

var (
	uuidRE  = regexp.MustCompile(`^\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$`)
	hexRE   = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{16,}$`)
	tokenRE = regexp.MustCompile(`^[A-Za-z0-9+/_=-]{20,}$`)
	floatRE = regexp.MustCompile(`^-?\d+\.\d+(e-?\d+)?$`)
)

// Sayable reports whether a person would say or type the column's values:
// not a GUID, a hash, a token or a long float.
func (c *Column) Sayable() bool { return c.Opaque == "" }

// ByMachine reports whether the column's values are made by a machine:
// opaque, a function of other columns of the row (Derived), or a generated
// column. No one sets them by hand or names a row by them.
func (c *Column) ByMachine() bool { return c.Opaque != "" || c.Derived != "" || c.Computed != 0 }

// readOpaque marks t's opaque and derived columns from a sample of its
// rows.
func readOpaque(conn *sqlite3.Conn, t *Table) error {
	if t.Rows == 0 {
		return nil
	}
	var cols []*Column
	for _, c := range t.Columns {
		if (c.Kind == Text || c.Kind == Real || c.Kind == Integer) && !(t.RowID && c.Name == RowIDColumn) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = quote(c.Name)
	}
	rows, err := queryRows(conn, fmt.Sprintf(`SELECT %s FROM %s LIMIT %d`, strings.Join(sel, ", "), quote(t.Name), opaqueSample))
	if err != nil {
		return err
	}
	for i, c := range cols {
		var vals []any
		for _, r := range rows {
			if r[i] != nil {
				vals = append(vals, r[i])
			}
		}
		c.Opaque = opaqueShape(vals)
	}
	markDerived(t, cols, rows)
	return nil
}

// opaqueShape says what every sampled value is when no person says such
// values ("a GUID", "a hash", "a token", "a long float"), or "".
func opaqueShape(vals []any) string {
	if len(vals) == 0 {
		return ""
	}
	all := func(ok func(s string) bool) bool {
		for _, v := range vals {
			if !ok(fmt.Sprint(v)) {
				return false
			}
		}
		return true
	}
	hasLetter := func(s string) bool { return strings.ContainsAny(strings.ToLower(s), "abcdef") }
	switch {
	case all(uuidRE.MatchString) && all(func(s string) bool { return len(s) >= 32 }):
		return "a GUID"
	case all(hexRE.MatchString) && !all(func(s string) bool { return !hasLetter(s) }):
		return "a hash"
	case all(tokenRE.MatchString) && all(mixedToken):
		return "a token"
	}
	// Long floats: most values with five or more decimals (a z-score, a
	// ratio, a coordinate). A price has two.
	long := 0
	for _, v := range vals {
		if decimals(v) >= 5 {
			long++
		}
	}
	if len(vals) >= 3 && 2*long >= len(vals) {
		return "a long float"
	}
	return ""
}

// mixedToken: upper case, lower case and digits together, as generated
// tokens are and words, codes and numbers are not.
func mixedToken(s string) bool {
	var up, low, dig bool
	for _, r := range s {
		up = up || r >= 'A' && r <= 'Z'
		low = low || r >= 'a' && r <= 'z'
		dig = dig || r >= '0' && r <= '9'
	}
	return up && low && dig
}

// decimals counts the digits after the point of a float or a text that
// reads as one (0 for anything else).
func decimals(v any) int {
	var s string
	switch x := v.(type) {
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if !floatRE.MatchString(x) || strings.Contains(x, "e") {
			return 0
		}
		s = x
	default:
		return 0
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// derivedMinRows: a relation seen on fewer rows may be chance.
const derivedMinRows = 5

// markDerived sets Derived on a numeric column that is, on every sampled
// row, another column scaled and shifted (a price in cents, a z-score) or
// two others added, subtracted, multiplied or divided (a total, a ratio).
func markDerived(t *Table, cols []*Column, rows [][]any) {
	var nums []int // indexes into cols
	for i, c := range cols {
		if (c.Kind == Integer || c.Kind == Real) && !c.Bool && t.ForeignKeyOf(c.Name) == nil && !t.IsKey(c.Name) {
			nums = append(nums, i)
		}
	}
	if len(rows) < derivedMinRows || len(nums) < 2 {
		return
	}
	val := func(r []any, i int) (float64, bool) {
		switch x := r[i].(type) {
		case int64:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	// column values, rows where all numeric columns read
	series := map[int][]float64{}
	for _, i := range nums {
		for _, r := range rows {
			v, ok := val(r, i)
			if !ok {
				v = math.NaN()
			}
			series[i] = append(series[i], v)
		}
	}
	varied := func(i int) bool {
		seen := map[float64]bool{}
		for _, v := range series[i] {
			if !math.IsNaN(v) {
				seen[v] = true
			}
		}
		return len(seen) >= 3
	}
	precs := map[int]int{}
	for _, i := range nums {
		d := 0
		for _, r := range rows {
			d = max(d, decimals(r[i]))
		}
		precs[i] = min(d, 12)
	}
	prec := func(i int) int { return precs[i] }
	// An operand is less precise than the result, or as precise and
	// earlier in the table (computed columns follow their inputs): of
	// quantity, price and total, the total is the derived one.
	before := func(a, c int) bool { return prec(a) < prec(c) || prec(a) == prec(c) && a < c }
	for _, ci := range nums {
		c := cols[ci]
		if c.Derived != "" || !varied(ci) {
			continue
		}
		// A whole number must match exactly (a total); a decimal within
		// its last digit (a ratio or a z-score rounded where it was
		// stored).
		tol := 1e-9
		if prec(ci) > 0 {
			tol = math.Pow(10, -float64(prec(ci)))
		}
		match := func(f func(k int) (float64, bool)) bool {
			n := 0
			for k, cv := range series[ci] {
				e, ok := f(k)
				if math.IsNaN(cv) || !ok || math.IsNaN(e) || math.IsInf(e, 0) {
					continue
				}
				if math.Abs(cv-e) > tol+1e-9*math.Abs(e) {
					return false
				}
				n++
			}
			return n >= derivedMinRows
		}
		// Scaled and shifted: fit by least squares, then hold on every
		// row.
		for _, ai := range nums {
			if ai == ci || !varied(ai) || !before(ai, ci) {
				continue
			}
			k, m, ok := affineFit(series[ai], series[ci])
			if !ok || math.Abs(k-1) < 1e-9 && math.Abs(m) < 1e-9 || math.Abs(k) < 1e-12 {
				continue
			}
			if match(func(r int) (float64, bool) { return k*series[ai][r] + m, true }) {
				c.Derived = fmt.Sprintf("%s scaled", cols[ai].Name)
				break
			}
		}
		if c.Derived != "" || len(nums) > 24 {
			continue
		}
	pairs:
		for _, ai := range nums {
			for _, bi := range nums {
				if ai == ci || bi == ci || ai == bi || !varied(ai) || !varied(bi) || !before(ai, ci) || !before(bi, ci) {
					continue
				}
				for _, op := range []string{"+", "-", "*", "/"} {
					if (op == "+" || op == "*") && ai > bi {
						continue // commutative: tried the other way
					}
					f := func(r int) (float64, bool) {
						a, b := series[ai][r], series[bi][r]
						switch op {
						case "+":
							return a + b, true
						case "-":
							return a - b, true
						case "*":
							return a * b, true
						}
						return a / b, b != 0
					}
					if match(f) {
						c.Derived = fmt.Sprintf("%s %s %s", cols[ai].Name, op, cols[bi].Name)
						break pairs
					}
				}
			}
		}
	}
}

// affineFit finds k and m with y ≈ k*x + m by least squares over the rows
// where both are set (a rounded z-score fits within its rounding).
func affineFit(x, y []float64) (k, m float64, ok bool) {
	var n, sx, sy, sxx, sxy float64
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			continue
		}
		n++
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	d := n*sxx - sx*sx
	if n < 2 || d == 0 {
		return 0, 0, false
	}
	k = (n*sxy - sx*sy) / d
	return k, (sy - k*sx) / n, true
}

// markReferenced records on each column the references that point to it.
func markReferenced(m *Model) {
	for _, t := range m.Tables {
		for _, fk := range t.ForeignKeys {
			p := m.Table(fk.RefTable)
			if p == nil {
				continue
			}
			for i, rc := range fk.RefColumns {
				if c := p.Column(rc); c != nil && i < len(fk.Columns) {
					c.ReferencedBy = append(c.ReferencedBy, t.Name+"."+fk.Columns[i])
				}
			}
		}
	}
}
