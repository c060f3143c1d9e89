package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// checkReturnable checks that an order is delivered and inside the return window.
func checkReturnable(o sdk.Row) error {
	id := o.String("order_id")
	if o.String("status") != "delivered" {
		return fmt.Errorf("order %s is %s: only delivered orders can be returned or exchanged", id, o.String("status"))
	}
	return withinReturnWindow(id)
}

// createReturn records a return or exchange request and its items.
func createReturn(orderID, typ, reason string, refund int64, method string, itemIDs []int, newVariants []string) (string, error) {
	rid, err := nextID("returns", "return_id", "R", 5001)
	if err != nil {
		return "", err
	}
	var m any
	if method != "" {
		m = method
	}
	if _, err := sdk.Exec(`INSERT INTO returns (return_id, order_id, type, status, reason, refund_cents, refund_method_id, created_at)
		VALUES (?, ?, ?, 'requested', ?, ?, ?, ?)`, rid, orderID, typ, reason, refund, m, now()); err != nil {
		return "", err
	}
	for i, item := range itemIDs {
		var nv any
		if newVariants != nil {
			nv = newVariants[i]
		}
		if _, err := sdk.Exec(`INSERT INTO return_items (return_id, item_id, new_variant_id) VALUES (?, ?, ?)`, rid, item, nv); err != nil {
			return "", err
		}
	}
	return rid, nil
}

// ReturnItems starts a return for items of a delivered order (within 30 days
// of delivery; final-sale products cannot be returned). The items' price is
// refunded right away to refund_method_id: the order's original card or
// PayPal account, or one of the customer's gift cards. Shipping is not
// refunded. The customer gets a prepaid return label by email.
func ReturnItems(args ReturnItemsArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id := o.String("order_id")
	if err := checkReturnable(o); err != nil {
		return nil, err
	}
	if err := checkDistinct(args.ItemIDs); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return nil, fmt.Errorf("reason is required")
	}
	var refund int64
	for _, itemID := range args.ItemIDs {
		item, err := loadItem(id, itemID)
		if err != nil {
			return nil, err
		}
		if item.String("status") != "ordered" {
			return nil, fmt.Errorf("item %d is %s and cannot be returned", itemID, item.String("status"))
		}
		if item.Bool("final_sale") {
			return nil, fmt.Errorf("item %d (%s) is a final-sale product and cannot be returned", itemID, item.String("product_name"))
		}
		refund += item.Int("unit_price_cents") * item.Int("quantity")
	}
	target, err := resolveRefundTarget(o, args.RefundMethodID)
	if err != nil {
		return nil, err
	}
	paid, err := sdk.QueryRow(`SELECT COALESCE(SUM(CASE kind WHEN 'charge' THEN amount_cents ELSE -amount_cents END), 0) AS net
		FROM transactions WHERE order_id = ?`, id)
	if err != nil {
		return nil, err
	}
	if refund > paid.Int("net") {
		return nil, fmt.Errorf("refund of %s exceeds the %s still paid on order %s", cents(refund), cents(paid.Int("net")), id)
	}
	rid, err := createReturn(id, "return", reason, refund, target.id, args.ItemIDs, nil)
	if err != nil {
		return nil, err
	}
	for _, itemID := range args.ItemIDs {
		if _, err := sdk.Exec(`UPDATE order_items SET status = 'return_requested' WHERE item_id = ?`, itemID); err != nil {
			return nil, err
		}
	}
	if err := addTransaction(id, "refund", target, refund, "return "+rid); err != nil {
		return nil, err
	}
	return map[string]any{"return_id": rid, "order_id": id, "item_ids": args.ItemIDs,
		"refund_cents": refund, "refunded_to": target.id, "status": "requested"}, nil
}

type ReturnItemsArgs struct {
	// The order id, such as "#W1007".
	OrderID string `json:"order_id"`
	// The item ids to return, from get_order.
	ItemIDs []int `json:"item_ids"`
	// Why the customer returns the items, in a few words.
	Reason string `json:"reason"`
	// Where the refund goes: the order's original payment method id (such as "card_3350") or a gift card code of the customer.
	RefundMethodID string `json:"refund_method_id"`
}

// ExchangeItems exchanges items of a delivered order (within 30 days of
// delivery) for other variants of the same product. The new variants are
// reserved now and ship when the old items are received. A price difference
// is charged to, or refunded to, payment_method_id.
func ExchangeItems(args ExchangeItemsArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id := o.String("order_id")
	if err := checkReturnable(o); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return nil, fmt.Errorf("reason is required")
	}
	swaps, diff, err := planSwaps(id, args.ItemIDs, args.NewVariantIDs)
	if err != nil {
		return nil, err
	}
	for _, s := range swaps {
		if s.item.Bool("final_sale") {
			return nil, fmt.Errorf("item %d (%s) is a final-sale product and cannot be exchanged",
				s.item.Int("item_id"), s.item.String("product_name"))
		}
	}
	payment, err := settleDifference(o, diff, args.PaymentMethodID, "exchange price difference")
	if err != nil {
		return nil, err
	}
	var refund int64
	method := ""
	if diff != 0 {
		method = strings.TrimSpace(args.PaymentMethodID)
		if strings.HasPrefix(strings.ToUpper(method), "GC-") {
			method = strings.ToUpper(method)
		}
	}
	if diff < 0 {
		refund = -diff
	}
	var variants []string
	for _, s := range swaps {
		variants = append(variants, s.variant.String("variant_id"))
	}
	rid, err := createReturn(id, "exchange", reason, refund, method, args.ItemIDs, variants)
	if err != nil {
		return nil, err
	}
	for _, s := range swaps {
		if _, err := sdk.Exec(`UPDATE variants SET stock = stock - ? WHERE variant_id = ?`,
			s.item.Int("quantity"), s.variant.String("variant_id")); err != nil {
			return nil, err
		}
		if _, err := sdk.Exec(`UPDATE order_items SET status = 'exchange_requested' WHERE item_id = ?`, s.item.Int("item_id")); err != nil {
			return nil, err
		}
	}
	return map[string]any{"return_id": rid, "order_id": id, "item_ids": args.ItemIDs, "new_variant_ids": variants,
		"price_difference_cents": diff, "payment": payment, "status": "requested"}, nil
}

type ExchangeItemsArgs struct {
	// The order id, such as "#W1010".
	OrderID string `json:"order_id"`
	// The item ids to exchange, from get_order.
	ItemIDs []int `json:"item_ids"`
	// For each item, in the same order, the variant id to send instead (same product).
	NewVariantIDs []string `json:"new_variant_ids"`
	// Why the customer exchanges the items, in a few words.
	Reason string `json:"reason"`
	// Payment method id (such as "paypal_7745") or gift card code to charge or refund the price difference; required only when prices differ.
	PaymentMethodID string `json:"payment_method_id,omitempty"`
}

// IssueCompensation gives the customer a store-credit gift card for a
// delivered order that arrived after its promised date (late_delivery) or
// arrived damaged (damaged_item). At most one compensation per order, and at
// most $30.00 (3000 cents) or 10% of the order total, whichever is lower.
func IssueCompensation(args IssueCompensationArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id := o.String("order_id")
	if o.String("status") != "delivered" {
		return nil, fmt.Errorf("order %s is %s: compensation is only for delivered orders", id, o.String("status"))
	}
	if err := oneOf("reason", args.Reason, "late_delivery", "damaged_item"); err != nil {
		return nil, err
	}
	if args.Reason == "late_delivery" {
		late, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM shipments WHERE order_id = ?
			AND delivered_at IS NOT NULL AND substr(delivered_at, 1, 10) > estimated_delivery`, id)
		if err != nil {
			return nil, err
		}
		if late.Int("n") == 0 {
			return nil, fmt.Errorf("order %s was delivered on time: no late-delivery compensation", id)
		}
	}
	limit := min(int64(maxCompensationCents), o.Int("total_cents")/10)
	if args.AmountCents <= 0 || int64(args.AmountCents) > limit {
		return nil, fmt.Errorf("amount must be between 1 and %d cents for order %s", limit, id)
	}
	if _, err := sdk.QueryRow(`SELECT code FROM gift_cards WHERE source_order_id = ? AND issued_reason = 'compensation'`, id); err == nil {
		return nil, fmt.Errorf("order %s has already been compensated", id)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	code := "GC-CMP-" + strings.TrimPrefix(id, "#W")
	expires := sdk.Now().Add(365 * 24 * time.Hour).Format("2006-01-02")
	if _, err := sdk.Exec(`INSERT INTO gift_cards (code, customer_id, initial_cents, balance_cents, status, issued_reason,
		source_order_id, expires_at, created_at) VALUES (?, ?, ?, ?, 'active', 'compensation', ?, ?, ?)`,
		code, o.String("customer_id"), args.AmountCents, args.AmountCents, id, expires, now()); err != nil {
		return nil, err
	}
	return map[string]any{"gift_card": code, "customer_id": o.String("customer_id"), "amount_cents": args.AmountCents,
		"reason": args.Reason, "expires_at": expires}, nil
}

type IssueCompensationArgs struct {
	// The order id, such as "#W1014".
	OrderID string `json:"order_id"`
	// Why the customer is compensated.
	Reason string `json:"reason" enum:"late_delivery,damaged_item"`
	// Gift card amount in cents: 10% of the order total rounded down, at most 3000.
	AmountCents int `json:"amount_cents"`
}
