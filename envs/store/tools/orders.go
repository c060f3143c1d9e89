package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListOrders lists a customer's orders, newest first, optionally only those
// with a given status.
func ListOrders(args ListOrdersArgs) (sdk.Rows, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT o.order_id, o.status, o.placed_at, o.total_cents,
		(SELECT COUNT(*) FROM order_items i WHERE i.order_id = o.order_id) AS item_count
		FROM orders o WHERE o.customer_id = ? AND (? = '' OR o.status = ?)
		ORDER BY o.placed_at DESC`, c.String("customer_id"), args.Status, args.Status)
}

type ListOrdersArgs struct {
	// The customer id, such as "C1001".
	CustomerID string `json:"customer_id"`
	// Only orders with this status.
	Status string `json:"status,omitempty" enum:"pending,processing,shipped,delivered,cancelled"`
}

// GetOrder returns an order with its shipping address, items (product,
// variant, price, status), payments and refunds, shipments and returns.
func GetOrder(args GetOrderArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id := o.String("order_id")
	items, err := sdk.Query(`SELECT i.item_id, i.variant_id, v.product_id, p.name AS product_name, v.color, v.size,
		i.quantity, i.unit_price_cents, i.status, p.final_sale
		FROM order_items i JOIN variants v USING (variant_id) JOIN products p USING (product_id)
		WHERE i.order_id = ? ORDER BY i.item_id`, id)
	if err != nil {
		return nil, err
	}
	txs, err := sdk.Query(`SELECT kind, source_type, source_id, amount_cents, note, created_at
		FROM transactions WHERE order_id = ? ORDER BY transaction_id`, id)
	if err != nil {
		return nil, err
	}
	ships, err := sdk.Query(`SELECT shipment_id, carrier, tracking_number, status, estimated_delivery, delivered_at
		FROM shipments WHERE order_id = ? ORDER BY shipment_id`, id)
	if err != nil {
		return nil, err
	}
	rets, err := sdk.Query(`SELECT r.return_id, r.type, r.status, r.reason, r.refund_cents, r.refund_method_id,
		group_concat(ri.item_id) AS item_ids
		FROM returns r JOIN return_items ri USING (return_id)
		WHERE r.order_id = ? GROUP BY r.return_id ORDER BY r.return_id`, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"order":        o,
		"items":        items,
		"transactions": txs,
		"shipments":    ships,
		"returns":      rets,
	}, nil
}

type GetOrderArgs struct {
	// The order id, such as "#W1002".
	OrderID string `json:"order_id"`
}

// TrackShipment returns the carrier, tracking number, status, promised
// delivery date and actual delivery time of an order's shipments.
func TrackShipment(args TrackShipmentArgs) (sdk.Rows, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return sdk.Rows{}, err
	}
	rows, err := sdk.Query(`SELECT shipment_id, carrier, tracking_number, status, shipped_at, estimated_delivery,
		delivered_at, (delivered_at IS NOT NULL AND substr(delivered_at, 1, 10) > estimated_delivery) AS delivered_late
		FROM shipments WHERE order_id = ? ORDER BY shipment_id`, o.String("order_id"))
	if err != nil {
		return rows, err
	}
	if rows.Len() == 0 {
		return rows, fmt.Errorf("order %s (%s) has not shipped yet", o.String("order_id"), o.String("status"))
	}
	return rows, nil
}

type TrackShipmentArgs struct {
	// The order id, such as "#W1008".
	OrderID string `json:"order_id"`
}

// CancelOrder cancels a pending or processing order: every item is cancelled,
// the stock is put back and every payment is refunded to where it came from
// (gift card amounts go back onto the gift card).
func CancelOrder(args CancelOrderArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	if err := oneOf("reason", args.Reason, "no longer needed", "ordered by mistake", "found better price", "delivery too slow"); err != nil {
		return nil, err
	}
	id := o.String("order_id")
	if st := o.String("status"); st != "pending" && st != "processing" {
		return nil, fmt.Errorf("order %s is %s: only pending or processing orders can be cancelled", id, st)
	}
	srcs, err := orderSources(id)
	if err != nil {
		return nil, err
	}
	var refunds []any
	for _, s := range srcs.All() {
		net := s.Int("net_cents")
		if net <= 0 {
			continue
		}
		src := source{s.String("source_type"), s.String("source_id")}
		if err := addTransaction(id, "refund", src, net, "order cancelled"); err != nil {
			return nil, err
		}
		refunds = append(refunds, map[string]any{"source_id": src.id, "amount_cents": net})
	}
	if _, err := sdk.Exec(`UPDATE variants SET stock = stock + (SELECT SUM(i.quantity) FROM order_items i
		WHERE i.order_id = ? AND i.variant_id = variants.variant_id AND i.status = 'ordered')
		WHERE variant_id IN (SELECT variant_id FROM order_items WHERE order_id = ? AND status = 'ordered')`, id, id); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE order_items SET status = 'cancelled' WHERE order_id = ? AND status = 'ordered'`, id); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE order_id = ?`,
		args.Reason, now(), id); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": id, "status": "cancelled", "refunds": refunds}, nil
}

type CancelOrderArgs struct {
	// The order id, such as "#W1002".
	OrderID string `json:"order_id"`
	// Why the customer cancels.
	Reason string `json:"reason" enum:"no longer needed,ordered by mistake,found better price,delivery too slow"`
}

// ModifyShippingAddress changes where a pending or processing order will be
// shipped. It does not change the customer's saved addresses.
func ModifyShippingAddress(args ModifyShippingAddressArgs) (sdk.Row, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	id := o.String("order_id")
	if st := o.String("status"); st != "pending" && st != "processing" {
		return sdk.Row{}, fmt.Errorf("order %s is %s: the address can be changed only before it ships", id, st)
	}
	state := strings.ToUpper(strings.TrimSpace(args.State))
	zip := strings.TrimSpace(args.Zip)
	if err := validateAddress(args.Line1, args.City, state, zip); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE orders SET ship_line1 = ?, ship_line2 = ?, ship_city = ?, ship_state = ?, ship_zip = ?,
		updated_at = ? WHERE order_id = ?`, strings.TrimSpace(args.Line1), strings.TrimSpace(args.Line2),
		strings.TrimSpace(args.City), state, zip, now(), id); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT order_id, status, ship_name, ship_line1, ship_line2, ship_city, ship_state, ship_zip
		FROM orders WHERE order_id = ?`, id)
}

type ModifyShippingAddressArgs struct {
	// The order id, such as "#W1005".
	OrderID string `json:"order_id"`
	// Street address, such as "455 Atlantic Ave".
	Line1 string `json:"line1"`
	// Apartment, suite or floor, such as "Apt 3B"; omit if none.
	Line2 string `json:"line2,omitempty"`
	// City.
	City string `json:"city"`
	// Two-letter state code, such as "NY".
	State string `json:"state"`
	// Five-digit zip code.
	Zip string `json:"zip"`
}

// ModifyOrderItems swaps items of a pending order for other variants of the
// same product (another size or color). The price difference is charged to,
// or refunded to, payment_method_id.
func ModifyOrderItems(args ModifyOrderItemsArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id := o.String("order_id")
	if o.String("status") != "pending" {
		return nil, fmt.Errorf("order %s is %s: items can be modified only while the order is pending", id, o.String("status"))
	}
	swaps, diff, err := planSwaps(id, args.ItemIDs, args.NewVariantIDs)
	if err != nil {
		return nil, err
	}
	payment, err := settleDifference(o, diff, args.PaymentMethodID, "item modification")
	if err != nil {
		return nil, err
	}
	for _, s := range swaps {
		qty := s.item.Int("quantity")
		if _, err := sdk.Exec(`UPDATE variants SET stock = stock + ? WHERE variant_id = ?`, qty, s.item.String("variant_id")); err != nil {
			return nil, err
		}
		if _, err := sdk.Exec(`UPDATE variants SET stock = stock - ? WHERE variant_id = ?`, qty, s.variant.String("variant_id")); err != nil {
			return nil, err
		}
		if _, err := sdk.Exec(`UPDATE order_items SET variant_id = ?, unit_price_cents = ? WHERE item_id = ?`,
			s.variant.String("variant_id"), s.variant.Int("price_cents"), s.item.Int("item_id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE orders SET subtotal_cents = subtotal_cents + ?, total_cents = total_cents + ?, updated_at = ?
		WHERE order_id = ?`, diff, diff, now(), id); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": id, "price_difference_cents": diff, "payment": payment,
		"total_cents": o.Int("total_cents") + diff}, nil
}

type ModifyOrderItemsArgs struct {
	// The order id, such as "#W1011".
	OrderID string `json:"order_id"`
	// The item ids to change, from get_order.
	ItemIDs []int `json:"item_ids"`
	// For each item, in the same order, the variant id it should become (same product).
	NewVariantIDs []string `json:"new_variant_ids"`
	// Payment method id (such as "card_1276") or gift card code to charge or refund the price difference; required only when prices differ.
	PaymentMethodID string `json:"payment_method_id,omitempty"`
}

// ApplyGiftCard pays part of a pending order with a gift card: the gift card
// is charged up to its balance and the same amount is refunded to the card or
// PayPal account that paid for the order. An unclaimed gift card becomes the
// customer's.
func ApplyGiftCard(args ApplyGiftCardArgs) (map[string]any, error) {
	o, err := loadOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	id, cust := o.String("order_id"), o.String("customer_id")
	if o.String("status") != "pending" {
		return nil, fmt.Errorf("order %s is %s: gift cards can be applied only to pending orders", id, o.String("status"))
	}
	code := strings.ToUpper(strings.TrimSpace(args.Code))
	gc, err := sdk.QueryRow(`SELECT * FROM gift_cards WHERE code = ?`, code)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("gift card %s not found", args.Code)
	} else if err != nil {
		return nil, err
	}
	if !gc.IsNull("customer_id") && gc.String("customer_id") != cust {
		return nil, fmt.Errorf("gift card %s belongs to another customer", code)
	}
	if err := usableGiftCard(gc); err != nil {
		return nil, err
	}
	if gc.Int("balance_cents") == 0 {
		return nil, fmt.Errorf("gift card %s has no balance left", code)
	}
	srcs, err := orderSources(id)
	if err != nil {
		return nil, err
	}
	var payer source
	var paid int64
	for _, s := range srcs.All() {
		if s.String("source_type") != "gift_card" && s.Int("net_cents") > 0 {
			payer, paid = source{s.String("source_type"), s.String("source_id")}, s.Int("net_cents")
			break
		}
	}
	if paid == 0 {
		return nil, fmt.Errorf("order %s has nothing left to pay with a card or PayPal", id)
	}
	amount := min(paid, gc.Int("balance_cents"))
	if gc.IsNull("customer_id") {
		if _, err := sdk.Exec(`UPDATE gift_cards SET customer_id = ? WHERE code = ?`, cust, code); err != nil {
			return nil, err
		}
	}
	if err := addTransaction(id, "charge", source{"gift_card", code}, amount, "gift card applied"); err != nil {
		return nil, err
	}
	if err := addTransaction(id, "refund", payer, amount, "replaced by gift card "+code); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": id, "gift_card": code, "applied_cents": amount,
		"refunded_to": payer.id, "gift_card_balance_cents": gc.Int("balance_cents") - amount}, nil
}

type ApplyGiftCardArgs struct {
	// The order id, such as "#W1013".
	OrderID string `json:"order_id"`
	// The gift card code, such as "GC-8KQ2-5531".
	Code string `json:"code"`
}
