package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// list runs a query whose one column j is a JSON object per row and
// decodes the rows, in order, into out (a pointer to a slice).
func list(out any, query string, args ...any) error {
	row, err := sdk.QueryRow("SELECT COALESCE(json_group_array(json(j)), '[]') AS j FROM ("+query+")", args...)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(row.String("j")), out)
}

// hireSpan is a hire that holds a unit.
type hireSpan struct {
	ID        int64  `json:"id"`
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
	Status    string `json:"status"`
}

const dateFmt = "2006-01-02"

func money(f float64) float64 { return math.Round(f*100) / 100 }

func parseDate(s, what string) (time.Time, error) {
	t, err := time.Parse(dateFmt, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date YYYY-MM-DD", what, s)
	}
	return t, nil
}

func today() time.Time {
	n := sdk.Now().UTC()
	return time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
}

// days counts the days of an inclusive range.
func days(start, end time.Time) int { return int(end.Sub(start).Hours()/24) + 1 }

// hireCharge prices a hire of n days: the day rate up to 4 days, the weekly
// rate for 5 to 7, and per started week beyond (a last part of 1 to 4 days
// at the day rate).
func hireCharge(n int, day, weekly float64) float64 {
	if n <= 4 {
		return money(float64(n) * day)
	}
	if n <= 7 {
		return weekly
	}
	weeks, rest := n/7, n%7
	c := float64(weeks) * weekly
	if rest >= 5 {
		c += weekly
	} else {
		c += float64(rest) * day
	}
	return money(c)
}

func withTrade(c float64, trade bool) float64 {
	if trade {
		return money(c * 0.9)
	}
	return c
}

func customerRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, trade_account FROM customers WHERE id = ?", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer with id %q", id)
	}
	return row, err
}

func itemRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, category, day_rate, weekly_rate, deposit FROM items WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no item with id %q", id)
	}
	return row, err
}

// clashes lists the hires (booked, or on hire: an overdue one holds its unit
// until it comes back) of a unit that overlap the range, except one hire.
func clashes(unitID string, start, end time.Time, except int64) ([]hireSpan, error) {
	t := today().Format(dateFmt)
	var out []hireSpan
	err := list(&out, `SELECT json_object('id', id, 'start_date', start_date, 'end_date', end_date, 'status', status) AS j
		FROM hires WHERE unit_id = ? AND id <> ?
		AND status IN ('booked','on_hire') AND start_date <= ?
		AND (CASE WHEN status = 'on_hire' AND end_date < ? THEN ? ELSE end_date END) >= ?
		ORDER BY start_date`, unitID, except, end.Format(dateFmt), t, t, start.Format(dateFmt))
	return out, err
}

// unitsOf lists the ids of an item's units in service.
func unitsOf(itemID string) ([]string, error) {
	var out []string
	err := list(&out, "SELECT json_quote(id) AS j FROM units WHERE item_id = ? AND status = 'in_service' ORDER BY id", itemID)
	return out, err
}

// freeUnit returns the first unit in service of the item free on every day
// of the range, or "".
func freeUnit(itemID string, start, end time.Time, except int64) (string, error) {
	units, err := unitsOf(itemID)
	if err != nil {
		return "", err
	}
	for _, u := range units {
		c, err := clashes(u, start, end, except)
		if err != nil {
			return "", err
		}
		if len(c) == 0 {
			return u, nil
		}
	}
	return "", nil
}

func ownHire(customerID string, hireID int64) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT h.*, i.id AS item_id, i.name AS item_name, i.day_rate, i.weekly_rate, i.deposit AS item_deposit, c.trade_account
		FROM hires h JOIN units u ON u.id = h.unit_id JOIN items i ON i.id = u.item_id JOIN customers c ON c.id = h.customer_id WHERE h.id = ?`, hireID)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no hire %d", hireID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if row.String("customer_id") != strings.TrimSpace(customerID) {
		return sdk.Row{}, fmt.Errorf("hire %d is not customer %s's hire", hireID, customerID)
	}
	return row, nil
}

func rangeOf(startS, endS string) (time.Time, time.Time, error) {
	start, err := parseDate(startS, "start_date")
	if err != nil {
		return start, start, err
	}
	end, err := parseDate(endS, "end_date")
	if err != nil {
		return start, end, err
	}
	if end.Before(start) {
		return start, end, fmt.Errorf("end_date %s is before start_date %s", endS, startS)
	}
	return start, end, nil
}
