package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type ReportItemIssueArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
	// Item name as listed on the order
	Item string `json:"item"`
	// missing or damaged
	Kind string `json:"kind"`
}

// ReportItemIssue reports a listed item of an order delivered at most 3 days ago as missing (credited at its value) or damaged (half its value); the credit goes to the account.
func ReportItemIssue(args ReportItemIssueArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "delivered" || o.IsNull("delivered_on") {
		return nil, fmt.Errorf("order %s is %s: issues can only be reported on delivered orders", o.String("id"), o.String("status"))
	}
	delivered, err := time.Parse("2006-01-02", o.String("delivered_on"))
	if err != nil {
		return nil, err
	}
	today, _ := time.Parse("2006-01-02", sdk.Now().UTC().Format("2006-01-02"))
	if int(math.Round(today.Sub(delivered).Hours()/24)) > 3 {
		return nil, fmt.Errorf("order %s was delivered on %s, more than 3 days ago: issues can no longer be reported", o.String("id"), o.String("delivered_on"))
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if kind != "missing" && kind != "damaged" {
		return nil, fmt.Errorf("unknown kind %q: use missing or damaged", args.Kind)
	}
	item, err := sdk.QueryRow(`SELECT id, name, value FROM order_items WHERE order_id = ? AND lower(name) = lower(?)`, o.String("id"), strings.TrimSpace(args.Item))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("%q is not listed on order %s", args.Item, o.String("id"))
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM item_issues WHERE item_id = ?`, item.Int("id")); err == nil {
		return nil, fmt.Errorf("%s has already been reported", item.String("name"))
	}
	credit := item.Float("value")
	if kind == "damaged" {
		credit = round2(credit / 2)
	}
	if _, err := sdk.Exec(`INSERT INTO item_issues (order_id, item_id, kind, credit, reported_at) VALUES (?, ?, ?, ?, ?)`, o.String("id"), item.Int("id"), kind, credit, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE customers SET credit = ROUND(credit + ?, 2) WHERE id = ?`, credit, args.CustomerID); err != nil {
		return nil, err
	}
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "item": item.String("name"), "kind": kind, "credit": credit, "account_credit": c.Float("credit")}, nil
}

// PayWithCredit pays an order's unpaid amount from the account credit, as far as the credit goes.
func PayWithCredit(args OrderArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") == "cancelled" {
		return nil, fmt.Errorf("order %s is cancelled", o.String("id"))
	}
	due := round2(o.Float("price") - o.Float("paid"))
	if due <= 0 {
		return nil, fmt.Errorf("nothing is due on order %s", o.String("id"))
	}
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	if c.Float("credit") <= 0 {
		return nil, errors.New("the account has no credit")
	}
	pay := math.Min(due, c.Float("credit"))
	if _, err := sdk.Exec(`UPDATE orders SET paid = ROUND(paid + ?, 2) WHERE id = ?`, pay, o.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE customers SET credit = ROUND(credit - ?, 2) WHERE id = ?`, pay, args.CustomerID); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "paid_now": round2(pay), "still_due": round2(due - pay), "account_credit": round2(c.Float("credit") - pay)}, nil
}
