package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindCustomerArgs struct {
	// Customer email
	Email string `json:"email"`
}

// FindCustomer finds a customer by email: id, name, area and account credit.
func FindCustomer(args FindCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT id AS customer_id, name, email, area, credit FROM customers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer has the email %s", args.Email)
	}
	return c, err
}

type ListWindowsArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// ListWindows lists the pickup windows of the customer's area on a date with their free places.
func ListWindows(args ListWindowsArgs) (sdk.Rows, error) {
	var none sdk.Rows
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return none, err
	}
	if _, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date)); err != nil {
		return none, fmt.Errorf("invalid date %q: use YYYY-MM-DD", args.Date)
	}
	return sdk.Query(`SELECT w.id AS window_id, w.starts_at, w.ends_at, w.capacity - (SELECT COUNT(*) FROM orders o WHERE o.window_id = w.id AND o.status = 'scheduled') AS free_places
		FROM windows w WHERE w.area = ? AND substr(w.starts_at, 1, 10) = ? ORDER BY w.starts_at`, c.String("area"), strings.TrimSpace(args.Date))
}

type CustomerArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
}

// ListOrders lists a customer's orders: service, pickup window, bags or items, weight, express, status, price, paid, due, return date, delivery date and listed items.
func ListOrders(args CustomerArgs) (sdk.Rows, error) {
	if _, err := loadCustomer(args.CustomerID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT o.id AS order_id, o.service, w.starts_at AS pickup_from, w.ends_at AS pickup_to, o.bags, o.items, o.weight_kg, o.express, o.status,
		o.price, o.paid, ROUND(o.price - o.paid, 2) AS due, o.return_date, o.delivered_on,
		COALESCE((SELECT group_concat(i.name || ' (' || printf('%.2f', i.value) || ')', ', ') FROM order_items i WHERE i.order_id = o.id), '') AS listed_items
		FROM orders o JOIN windows w ON w.id = o.window_id WHERE o.customer_id = ? ORDER BY w.starts_at`, args.CustomerID)
}

type SchedulePickupArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Window id
	WindowID string `json:"window_id"`
	// wash_fold or dry_clean
	Service string `json:"service"`
	// Bags for wash_fold
	Bags int `json:"bags,omitempty"`
	// Items for dry_clean
	Items int `json:"items,omitempty"`
	// Express service
	Express bool `json:"express,omitempty"`
}

// SchedulePickup schedules a wash_fold (bags, priced per kg at pickup) or dry_clean (items, priced now) pickup in a free future window of the customer's area, optionally express (+8.00, next-day return).
func SchedulePickup(args SchedulePickupArgs) (sdk.Row, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return noRow(), err
	}
	svc, err := sdk.QueryRow(`SELECT * FROM services WHERE code = ?`, args.Service)
	if errors.Is(err, sdk.ErrNoRows) {
		return noRow(), fmt.Errorf("unknown service %q: use wash_fold or dry_clean", args.Service)
	}
	if err != nil {
		return noRow(), err
	}
	price := 0.0
	switch args.Service {
	case "wash_fold":
		if args.Bags < 1 {
			return noRow(), errors.New("give the number of bags for wash and fold")
		}
	case "dry_clean":
		if args.Items < 1 {
			return noRow(), errors.New("give the number of items for dry cleaning")
		}
		price = svc.Float("price") * float64(args.Items)
	}
	w, err := freeWindow(c.String("area"), args.WindowID)
	if err != nil {
		return noRow(), err
	}
	express := 0
	if args.Express {
		express = 1
		price += expressCharge
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 600) + 1 AS n FROM orders WHERE id LIKE 'O-%'`)
	if err != nil {
		return noRow(), err
	}
	n := next.Int("n")
	if n < 601 {
		n = 601
	}
	id := fmt.Sprintf("O-%d", n)
	if _, err := sdk.Exec(`INSERT INTO orders (id, customer_id, service, window_id, bags, items, weight_kg, express, status, price, paid, return_date, delivered_on, created_at)
		VALUES (?, ?, ?, ?, ?, ?, NULL, ?, 'scheduled', ?, 0, ?, NULL, ?)`, id, c.String("id"), args.Service, w.String("id"), args.Bags, args.Items, express, round2(price),
		returnDate(w.String("starts_at"), args.Express), sdk.Now().UTC().Format(stamp)); err != nil {
		return noRow(), err
	}
	return orderView(id)
}

type OrderArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
}

// AddExpress adds express service (+8.00, next-day return) to a scheduled order before pickup.
func AddExpress(args OrderArgs) (sdk.Row, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return noRow(), err
	}
	if o.String("status") != "scheduled" {
		return noRow(), fmt.Errorf("order %s is %s: express can only be added before pickup", o.String("id"), o.String("status"))
	}
	if o.Int("express") == 1 {
		return noRow(), fmt.Errorf("order %s is already express", o.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET express = 1, price = ROUND(price + ?, 2), return_date = ? WHERE id = ?`, expressCharge, returnDate(o.String("starts_at"), true), o.String("id")); err != nil {
		return noRow(), err
	}
	return orderView(o.String("id"))
}

type ChangeWindowArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
	// New window id
	WindowID string `json:"window_id"`
}

// ChangeWindow moves a scheduled pickup to another free window of the area, only 2 hours or more before the current window starts.
func ChangeWindow(args ChangeWindowArgs) (sdk.Row, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return noRow(), err
	}
	if o.String("status") != "scheduled" {
		return noRow(), fmt.Errorf("order %s is %s: its pickup can no longer change", o.String("id"), o.String("status"))
	}
	start, err := time.Parse(time.RFC3339, o.String("starts_at"))
	if err != nil {
		return noRow(), err
	}
	if start.Sub(sdk.Now()) < 2*time.Hour {
		return noRow(), fmt.Errorf("order %s's pickup window starts at %s, less than 2 hours from now: it can no longer be changed", o.String("id"), o.String("starts_at"))
	}
	if strings.TrimSpace(args.WindowID) == o.String("window_id") {
		return noRow(), fmt.Errorf("order %s is already in window %s", o.String("id"), o.String("window_id"))
	}
	w, err := freeWindow(o.String("area"), args.WindowID)
	if err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE orders SET window_id = ?, return_date = ? WHERE id = ?`, w.String("id"), returnDate(w.String("starts_at"), o.Int("express") == 1), o.String("id")); err != nil {
		return noRow(), err
	}
	return orderView(o.String("id"))
}

// CancelOrder cancels a scheduled order before pickup, free of charge.
func CancelOrder(args OrderArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "scheduled" {
		return nil, fmt.Errorf("order %s is %s: only orders not yet picked up can be cancelled", o.String("id"), o.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'cancelled' WHERE id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "status": "cancelled", "charge": 0}, nil
}
