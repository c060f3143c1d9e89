package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListSlotsArgs are the arguments of list_slots.
type ListSlotsArgs struct {
	// The date, YYYY-MM-DD.
	Date string `json:"date"`
}

// ListSlots lists the delivery slots of a date with their free places.
func ListSlots(args ListSlotsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT s.id, s.date, s."window" AS delivery_window, s.cutoff_at, s.capacity,
		s.capacity - (SELECT count(*) FROM orders o WHERE o.slot_id = s.id AND o.status = 'scheduled') AS free_places
		FROM delivery_slots s WHERE s.date = ? ORDER BY s."window"`, strings.TrimSpace(args.Date))
}

// ChangeSlotArgs are the arguments of change_slot.
type ChangeSlotArgs struct {
	// The order's id.
	OrderID string `json:"order_id"`
	// The new slot's id from list_slots.
	SlotID string `json:"slot_id"`
}

// ChangeSlot moves a scheduled order to another slot with a free place.
func ChangeSlot(args ChangeSlotArgs) (map[string]any, error) {
	o, err := editable(args.OrderID)
	if err != nil {
		return nil, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.cutoff_at, s.capacity - (SELECT count(*) FROM orders o WHERE o.slot_id = s.id AND o.status = 'scheduled') AS free_places
		FROM delivery_slots s WHERE s.id = ?`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no delivery slot has the id %s", args.SlotID)
	} else if err != nil {
		return nil, err
	}
	if s.String("id") == o.String("slot_id") {
		return nil, fmt.Errorf("order %s is already in slot %s", o.String("id"), s.String("id"))
	}
	cutoff, err := time.Parse(time.RFC3339, s.String("cutoff_at"))
	if err != nil {
		return nil, err
	}
	if !sdk.Now().Before(cutoff) {
		return nil, fmt.Errorf("slot %s closed for orders at %s", s.String("id"), s.String("cutoff_at"))
	}
	if s.Int("free_places") < 1 {
		return nil, fmt.Errorf("slot %s is full", s.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET slot_id = ? WHERE id = ?`, s.String("id"), o.String("id")); err != nil {
		return nil, err
	}
	return orderDetail(o.String("id"))
}

// ApplyPromoArgs are the arguments of apply_promo.
type ApplyPromoArgs struct {
	// The order's id.
	OrderID string `json:"order_id"`
	// The promo code, such as SUMMER10.
	Code string `json:"code"`
}

// ApplyPromo applies a valid promo code to a scheduled order without one.
func ApplyPromo(args ApplyPromoArgs) (map[string]any, error) {
	o, err := editable(args.OrderID)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT code, valid_until FROM promo_codes WHERE code = upper(?)`, strings.TrimSpace(args.Code))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no promo code %s", args.Code)
	} else if err != nil {
		return nil, err
	}
	until, err := time.Parse(time.RFC3339, p.String("valid_until"))
	if err != nil {
		return nil, err
	}
	if sdk.Now().After(until) {
		return nil, fmt.Errorf("promo code %s expired on %s", p.String("code"), p.String("valid_until"))
	}
	if o.String("promo_code") != "" {
		return nil, fmt.Errorf("order %s already has the promo code %s: remove it first", o.String("id"), o.String("promo_code"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET promo_code = ? WHERE id = ?`, p.String("code"), o.String("id")); err != nil {
		return nil, err
	}
	return orderDetail(o.String("id"))
}

// RemovePromoArgs are the arguments of remove_promo.
type RemovePromoArgs struct {
	// The order's id.
	OrderID string `json:"order_id"`
}

// RemovePromo removes the promo code of a scheduled order.
func RemovePromo(args RemovePromoArgs) (map[string]any, error) {
	o, err := editable(args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("promo_code") == "" {
		return nil, fmt.Errorf("order %s has no promo code", o.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET promo_code = NULL WHERE id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	return orderDetail(o.String("id"))
}

// RequestRefundArgs are the arguments of request_refund.
type RequestRefundArgs struct {
	// The order's id.
	OrderID string `json:"order_id"`
	// The item's sku from get_order.
	SKU string `json:"sku"`
	// damaged or missing.
	Reason string `json:"reason"`
}

// RequestRefund refunds a damaged or missing item of a recently delivered order.
func RequestRefund(args RequestRefundArgs) (sdk.Row, error) {
	o, err := orderRow(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	reason := strings.ToLower(strings.TrimSpace(args.Reason))
	if reason != "damaged" && reason != "missing" {
		return sdk.Row{}, fmt.Errorf("the reason must be damaged or missing, not %q", args.Reason)
	}
	if o.String("status") != "delivered" {
		return sdk.Row{}, fmt.Errorf("order %s is %s: only delivered orders can be refunded", o.String("id"), o.String("status"))
	}
	delivered, err := time.Parse(time.RFC3339, o.String("delivered_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if sdk.Now().Sub(delivered) > 48*time.Hour {
		return sdk.Row{}, fmt.Errorf("order %s was delivered at %s, more than 48 hours ago", o.String("id"), o.String("delivered_at"))
	}
	line, err := sdk.QueryRow(`SELECT quantity, unit_price FROM order_items WHERE order_id = ? AND sku = ?`, o.String("id"), strings.TrimSpace(args.SKU))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("order %s has no item %s", o.String("id"), args.SKU)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM refunds WHERE order_id = ? AND sku = ?`, o.String("id"), strings.TrimSpace(args.SKU)); err == nil {
		return sdk.Row{}, fmt.Errorf("item %s of order %s was already refunded", args.SKU, o.String("id"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	amount := round2(float64(line.Int("quantity")) * line.Float("unit_price"))
	res, err := sdk.Exec(`INSERT INTO refunds (order_id, sku, reason, amount, requested_at) VALUES (?, ?, ?, ?, ?)`,
		o.String("id"), strings.TrimSpace(args.SKU), reason, amount, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, order_id, sku, reason, amount, requested_at FROM refunds WHERE id = ?`, res.LastInsertID)
}
