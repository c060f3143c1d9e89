package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	minGuests       = 10
	orderLeadDays   = 7
	changeLeadDays  = 5
	freeCancelDays  = 14
	cancelShare     = 0.25
	dateLayout      = "2006-01-02"
	orderTotalQuery = "round((o.guests * p.price_per_guest + COALESCE((SELECT SUM(d.quantity * x.surcharge) FROM order_dietary d JOIN dietary_options x ON x.id = d.option_id WHERE d.order_id = o.id), 0)) * (1 - o.discount_percent / 100.0), 2)"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// daysUntil counts whole days from today to an event date.
func daysUntil(date string) (int, error) {
	d, err := time.Parse(dateLayout, strings.TrimSpace(date))
	if err != nil {
		return 0, fmt.Errorf("date %q is not in YYYY-MM-DD form", date)
	}
	n := sdk.Now().UTC()
	today := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
	return int(d.Sub(today).Hours() / 24), nil
}

// getOrder returns an order with its total, balance and dietary meals.
func getOrder(id string) (sdk.Row, error) {
	o, err := sdk.QueryRow("SELECT o.id AS order_id, o.client_id, p.id AS package_id, p.name AS package, o.event_date, o.venue, o.guests, o.status, o.discount_percent, "+orderTotalQuery+" AS total, o.paid, o.cancellation_charge, COALESCE((SELECT SUM(quantity) FROM order_dietary WHERE order_id = o.id), 0) AS dietary_meals, COALESCE((SELECT group_concat(option_id || ' x' || quantity, ', ') FROM (SELECT option_id, quantity FROM order_dietary WHERE order_id = o.id ORDER BY option_id)), '') AS dietary FROM orders o JOIN packages p ON p.id = o.package_id WHERE o.id = ?",
		strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return o, fmt.Errorf("no order %q", id)
	}
	return o, err
}

// orderView adds the balance to an order.
func orderView(id string) (map[string]any, error) {
	o, err := getOrder(id)
	if err != nil {
		return nil, err
	}
	owed := o.Float("total")
	if o.String("status") == "cancelled" {
		owed = o.Float("cancellation_charge")
	}
	return map[string]any{"order_id": o.String("order_id"), "package": o.String("package"), "event_date": o.String("event_date"), "venue": o.String("venue"), "guests": o.Int("guests"), "status": o.String("status"), "discount_percent": o.Float("discount_percent"), "dietary": o.String("dietary"), "total": o.Float("total"), "paid": o.Float("paid"), "balance": round2(owed - o.Float("paid")), "cancellation_charge": o.Float("cancellation_charge")}, nil
}

func confirmedOrder(id string) (sdk.Row, error) {
	o, err := getOrder(id)
	if err != nil {
		return o, err
	}
	if o.String("status") != "confirmed" {
		return o, fmt.Errorf("order %s is %s", o.String("order_id"), o.String("status"))
	}
	return o, nil
}

func getPackage(ref string) (sdk.Row, error) {
	p, err := sdk.QueryRow("SELECT id, name, price_per_guest FROM packages WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(ref), strings.TrimSpace(ref))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("no package %q", ref)
	}
	return p, err
}
