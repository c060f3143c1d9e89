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
	premiumFactor = 1.2
	expressFactor = 1.3
	cancelFee     = 10.0
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func stamp() string { return sdk.Now().UTC().Format("2006-01-02T15:04:05Z") }

// priceFor is a product's price at a listed quantity, paper and speed.
func priceFor(product string, quantity int64, paper string, express bool) (float64, error) {
	t, err := sdk.QueryRow("SELECT price FROM price_tiers WHERE product_id = ? AND quantity = ?", product, quantity)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("%d is not a listed quantity of %s (see list_products)", quantity, product)
	}
	if err != nil {
		return 0, err
	}
	p := t.Float("price")
	switch paper {
	case "standard":
	case "premium":
		p *= premiumFactor
	default:
		return 0, fmt.Errorf("paper %q is not standard or premium", paper)
	}
	if express {
		p *= expressFactor
	}
	return round2(p), nil
}

// addWorkingDays counts n working days (Monday to Friday) after a date.
func addWorkingDays(from time.Time, n int) time.Time {
	d := from
	for n > 0 {
		d = d.AddDate(0, 0, 1)
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return d
}

// dueDate is when an approved order is ready: 3 working days after approval,
// or the next working day (from approval or today, the later) for express.
func dueDate(approved string, express bool) (string, error) {
	t, err := time.Parse(time.RFC3339, approved)
	if err != nil {
		return "", err
	}
	if express {
		if now := sdk.Now().UTC(); now.After(t) {
			t = now
		}
		return addWorkingDays(t, 1).Format("2006-01-02"), nil
	}
	return addWorkingDays(t, 3).Format("2006-01-02"), nil
}

func getOrder(id string) (sdk.Row, error) {
	o, err := sdk.QueryRow("SELECT o.id AS order_id, o.customer_id, o.product_id, p.name AS product, o.quantity, o.paper, o.express, o.status, o.price, o.cancel_fee, o.proof_approved_at, o.due_date FROM orders o JOIN products p ON p.id = o.product_id WHERE o.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return o, fmt.Errorf("no order %q", id)
	}
	return o, err
}

// openOrder returns an order not yet printed or cancelled.
func openOrder(id string) (sdk.Row, error) {
	o, err := getOrder(id)
	if err != nil {
		return o, err
	}
	if s := o.String("status"); s == "printed" || s == "cancelled" {
		return o, fmt.Errorf("order %s is %s and cannot be changed", o.String("order_id"), s)
	}
	return o, nil
}
