package tools

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// day is the layout of stored dates.
const day = "2006-01-02"

// today is the clock's date.
func today() time.Time {
	n := sdk.Now().UTC()
	return time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
}

// cents rounds an amount to cents.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

// nextBilling is the first billing date after today.
func nextBilling(billingDay int) time.Time {
	t := today()
	d := time.Date(t.Year(), t.Month(), billingDay, 0, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(0, 1, 0)
	}
	return d
}

// member returns a member's row with plan name and fee.
func member(memberID string) (m sdk.Row, err error) {
	m, err = sdk.QueryRow("SELECT m.id, m.name, m.email, m.plan_id, p.name AS plan, p.monthly_fee, p.free_sessions_per_month, m.status, m.billing_day, m.min_term_ends_on, m.pending_plan_id, m.pending_plan_from, m.cancel_effective_on FROM members m JOIN plans p ON p.id = m.plan_id WHERE m.id = ?", memberID)
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no member with id %q", memberID)
	}
	return m, err
}

// cancellationFee is half the monthly fees due before the minimum term
// ends, counted from the end of 30 days' notice given today.
func cancellationFee(m sdk.Row) (float64, time.Time, error) {
	effective := today().AddDate(0, 0, 30)
	minEnd, err := time.Parse(day, m.String("min_term_ends_on"))
	if err != nil {
		return 0, effective, err
	}
	bd := int(m.Int("billing_day"))
	d := time.Date(effective.Year(), effective.Month(), bd, 0, 0, 0, 0, time.UTC)
	if !d.After(effective) {
		d = d.AddDate(0, 1, 0)
	}
	n := 0
	for d.Before(minEnd) {
		n++
		d = d.AddDate(0, 1, 0)
	}
	return cents(float64(n) * m.Float("monthly_fee") / 2), effective, nil
}

// newID numbers a new row after a table's count.
func newID(prefix, table string) (string, error) {
	row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM " + table)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d", prefix, 101+row.Int("n")), nil
}
