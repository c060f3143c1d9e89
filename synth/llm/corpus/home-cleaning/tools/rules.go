package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// startHour is when every visit starts (UTC).
const startHour = "T09:00:00Z"

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// visitDay checks a date for a new or moved visit: YYYY-MM-DD, after today.
func visitDay(s string) (string, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	day := d.Format("2006-01-02")
	if day <= sdk.Now().UTC().Format("2006-01-02") {
		return "", fmt.Errorf("%s is not after today", day)
	}
	return day, nil
}

func getCustomer(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name, bedrooms, loyalty_credit FROM customers WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer with id %q", id)
	}
	return c, err
}

func getCleaner(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name FROM cleaners WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no cleaner with id %q", id)
	}
	return c, err
}

// priceFor is a service's price for a number of bedrooms.
func priceFor(service string, bedrooms int64) (float64, error) {
	s, err := sdk.QueryRow("SELECT base_price, per_bedroom FROM services WHERE id = ?", strings.TrimSpace(service))
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("no service %q (standard, deep or move_out)", service)
	}
	if err != nil {
		return 0, err
	}
	return round2(s.Float("base_price") + s.Float("per_bedroom")*float64(bedrooms)), nil
}

// free fails when the cleaner has a booked visit on the day other than except.
func free(cleaner sdk.Row, day, except string) error {
	_, err := sdk.QueryRow("SELECT id FROM visits WHERE cleaner_id = ? AND status = 'booked' AND substr(start, 1, 10) = ? AND id <> ?", cleaner.String("id"), day, except)
	if err == nil {
		return fmt.Errorf("%s already has a visit on %s", cleaner.String("name"), day)
	}
	if errors.Is(err, sdk.ErrNoRows) {
		return nil
	}
	return err
}

// getVisit returns a visit with its extras and total.
func getVisit(id string) (sdk.Row, error) {
	v, err := sdk.QueryRow("SELECT v.id, v.customer_id, v.service_id AS service, v.cleaner_id, c.name AS cleaner, v.start, v.status, v.price, COALESCE((SELECT group_concat(extra_id, ',') FROM (SELECT extra_id FROM visit_extras WHERE visit_id = v.id ORDER BY extra_id)), '') AS extras, round(v.price + COALESCE((SELECT SUM(price) FROM visit_extras WHERE visit_id = v.id), 0), 2) AS total, v.credit_applied, v.cancel_fee, v.rating, v.rated_at, v.reclean_of FROM visits v JOIN cleaners c ON c.id = v.cleaner_id WHERE v.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return v, fmt.Errorf("no visit with id %q", id)
	}
	return v, err
}

// bookedVisit returns a visit that is still booked.
func bookedVisit(id string) (sdk.Row, error) {
	v, err := getVisit(id)
	if err != nil {
		return v, err
	}
	if v.String("status") != "booked" {
		return v, fmt.Errorf("visit %s is %s, not booked", id, v.String("status"))
	}
	return v, nil
}

// hoursUntil is the time from the clock to a visit's start.
func hoursUntil(v sdk.Row) (float64, error) {
	t, err := time.Parse(time.RFC3339, v.String("start"))
	if err != nil {
		return 0, err
	}
	return t.Sub(sdk.Now()).Hours(), nil
}

// nextVisitID is the next v-NN id.
func nextVisitID() (string, error) {
	r, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 3) AS INTEGER)), 0) + 1 AS n FROM visits WHERE id LIKE 'v-%'")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("v-%02d", r.Int("n")), nil
}

func parseStamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, fmt.Errorf("bad time %q", s)
	}
	return t, nil
}
