package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func loadCustomer(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT * FROM customers WHERE id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("customer %s not found", id)
	}
	return c, err
}

// ownOrder loads one of the customer's orders.
func ownOrder(customerID, orderID string) (sdk.Row, error) {
	if c, err := loadCustomer(customerID); err != nil {
		return c, err
	}
	o, err := sdk.QueryRow(`SELECT * FROM orders WHERE id = ? AND customer_id = ?`, strings.TrimSpace(orderID), customerID)
	if errors.Is(err, sdk.ErrNoRows) {
		return o, fmt.Errorf("order %s not found for customer %s", orderID, customerID)
	}
	return o, err
}

// recalc sets an order's subtotal, discount (its code's percent while the subtotal reaches the minimum) and total.
func recalc(orderID string) error {
	_, err := sdk.Exec(`UPDATE orders SET subtotal = ROUND((SELECT COALESCE(SUM(quantity * unit_price), 0) FROM order_lines WHERE order_id = orders.id), 2) WHERE id = ?`, orderID)
	if err != nil {
		return err
	}
	_, err = sdk.Exec(`UPDATE orders SET discount = COALESCE((SELECT CASE WHEN orders.subtotal >= d.min_subtotal THEN ROUND(orders.subtotal * d.percent / 100.0, 2) ELSE 0 END FROM discount_codes d WHERE d.code = orders.code), 0) WHERE id = ?`, orderID)
	if err != nil {
		return err
	}
	_, err = sdk.Exec(`UPDATE orders SET total = ROUND(subtotal - discount, 2) WHERE id = ?`, orderID)
	return err
}

// orderView is an order with its lines.
func orderView(id string) (map[string]any, error) {
	o, err := sdk.QueryRow(`SELECT * FROM orders WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	lines, err := sdk.Query(`SELECT l.book_id, b.title, l.quantity, l.unit_price, l.returned FROM order_lines l JOIN books b ON b.id = l.book_id WHERE l.order_id = ? ORDER BY l.id`, id)
	if err != nil {
		return nil, err
	}
	code := ""
	if !o.IsNull("code") {
		code = o.String("code")
	}
	return map[string]any{"order_id": o.String("id"), "status": o.String("status"), "payment": o.String("payment"), "subtotal": o.Float("subtotal"),
		"discount": o.Float("discount"), "total": o.Float("total"), "code": code, "lines": lines}, nil
}

// daysSince is how many whole days lie between a date and today.
func daysSince(date string) (int, error) {
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		return 0, fmt.Errorf("invalid date %q", date)
	}
	t, _ := time.Parse("2006-01-02", sdk.Now().UTC().Format("2006-01-02"))
	return int(math.Round(t.Sub(d).Hours() / 24)), nil
}
