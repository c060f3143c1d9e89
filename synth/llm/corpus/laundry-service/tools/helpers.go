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
	stamp          = "2006-01-02T15:04:05Z"
	expressCharge  = 8.0
	standardReturn = 3 // days after pickup
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func noRow() sdk.Row {
	var r sdk.Row
	return r
}

func loadCustomer(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT * FROM customers WHERE id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("customer %s not found", id)
	}
	return c, err
}

// ownOrder loads one of the customer's orders with its window.
func ownOrder(customerID, orderID string) (sdk.Row, error) {
	if c, err := loadCustomer(customerID); err != nil {
		return c, err
	}
	o, err := sdk.QueryRow(`SELECT o.*, w.starts_at, w.area FROM orders o JOIN windows w ON w.id = o.window_id WHERE o.id = ? AND o.customer_id = ?`, strings.TrimSpace(orderID), customerID)
	if errors.Is(err, sdk.ErrNoRows) {
		return o, fmt.Errorf("order %s not found for customer %s", orderID, customerID)
	}
	return o, err
}

// freeWindow loads a window of the area that starts in the future and still has a free place.
func freeWindow(area, windowID string) (sdk.Row, error) {
	w, err := sdk.QueryRow(`SELECT w.*, w.capacity - (SELECT COUNT(*) FROM orders o WHERE o.window_id = w.id AND o.status = 'scheduled') AS free FROM windows w WHERE w.id = ?`, strings.TrimSpace(windowID))
	if errors.Is(err, sdk.ErrNoRows) {
		return w, fmt.Errorf("window %s not found", windowID)
	}
	if err != nil {
		return w, err
	}
	if w.String("area") != area {
		return w, fmt.Errorf("window %s is in the %s area, not %s", w.String("id"), w.String("area"), area)
	}
	start, err := time.Parse(time.RFC3339, w.String("starts_at"))
	if err != nil {
		return w, err
	}
	if !start.After(sdk.Now()) {
		return w, fmt.Errorf("window %s has already started", w.String("id"))
	}
	if w.Int("free") <= 0 {
		return w, fmt.Errorf("window %s is full", w.String("id"))
	}
	return w, nil
}

// returnDate is the date an order picked up in a window comes back.
func returnDate(windowStart string, express bool) string {
	t, err := time.Parse(time.RFC3339, windowStart)
	if err != nil {
		return ""
	}
	days := standardReturn
	if express {
		days = 1
	}
	return t.AddDate(0, 0, days).Format("2006-01-02")
}

func orderView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT o.id AS order_id, o.service, w.starts_at AS pickup_from, w.ends_at AS pickup_to, o.bags, o.items, o.weight_kg, o.express, o.status,
		o.price, o.paid, ROUND(o.price - o.paid, 2) AS due, o.return_date, o.delivered_on FROM orders o JOIN windows w ON w.id = o.window_id WHERE o.id = ?`, id)
}
