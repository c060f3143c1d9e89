package tools

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindFanArgs are find_fan's arguments.
type FindFanArgs struct {
	// fan's email
	Email string `json:"email"`
}

// FindFan looks up a fan by email.
func FindFan(args FindFanArgs) (map[string]any, error) {
	row, err := sdk.QueryRow("SELECT id, name FROM fans WHERE lower(email) = lower(?)", args.Email)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no fan with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"fan_id": row.String("id"), "name": row.String("name")}, nil
}

// FanArgs name one fan.
type FanArgs struct {
	// fan id
	FanID string `json:"fan_id"`
}

// ListOrders lists a fan's orders with their tickets.
func ListOrders(args FanArgs) (out sdk.Rows, err error) {
	if err := fanExists(args.FanID); err != nil {
		return out, err
	}
	return sdk.Query("SELECT o.id, o.purchased_at, o.status, (SELECT GROUP_CONCAT(t.id, ', ') FROM tickets t WHERE t.order_id = o.id) AS tickets FROM orders o WHERE o.fan_id = ? ORDER BY o.purchased_at", args.FanID)
}

// ListTickets lists a fan's tickets with their add-ons.
func ListTickets(args FanArgs) (out sdk.Rows, err error) {
	if err := fanExists(args.FanID); err != nil {
		return out, err
	}
	return sdk.Query("SELECT t.id, t.order_id, p.kind, COALESCE(d.label, 'Friday-Sunday') AS day, COALESCE(d.status, 'on') AS day_status, t.holder_name, t.name_changes, t.price_paid, t.booking_fee, t.status, COALESCE((SELECT GROUP_CONCAT(a.kind || COALESCE(' ' || a.day, ''), ', ') FROM ticket_addons ta JOIN addons a ON a.id = ta.addon_id WHERE ta.ticket_id = t.id), '') AS addons FROM tickets t JOIN orders o ON o.id = t.order_id JOIN products p ON p.id = t.product_id LEFT JOIN festival_days d ON d.day = p.day WHERE o.fan_id = ? ORDER BY t.id", args.FanID)
}

// GetFestivalInfo returns days, ticket products and add-ons.
func GetFestivalInfo() (map[string]any, error) {
	days, err := sdk.Query("SELECT day, label, status FROM festival_days ORDER BY day")
	if err != nil {
		return nil, err
	}
	products, err := sdk.Query("SELECT id, kind, day, price, booking_fee, stock FROM products ORDER BY id")
	if err != nil {
		return nil, err
	}
	addons, err := sdk.Query("SELECT id, kind, COALESCE(day, 'weekend') AS day, price, stock FROM addons ORDER BY id")
	if err != nil {
		return nil, err
	}
	return map[string]any{"days": days, "products": products, "addons": addons}, nil
}
