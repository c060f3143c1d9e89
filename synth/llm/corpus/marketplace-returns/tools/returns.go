package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// OpenReturnArgs are the arguments of open_return.
type OpenReturnArgs struct {
	// The buyer id verify_buyer returned.
	BuyerID string `json:"buyer_id"`
	// Item id such as OI-1.
	OrderItemID string `json:"order_item_id"`
	// refund or exchange.
	Kind string `json:"kind"`
	// The size wanted, for an exchange.
	NewSize string `json:"new_size,omitempty"`
	// The buyer's reason.
	Reason string `json:"reason"`
}

// OpenReturn opens a refund or an exchange of an order item within its return window.
func OpenReturn(args OpenReturnArgs) (map[string]any, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return nil, err
	}
	it, err := sdk.QueryRow(itemColumns+` WHERE oi.id = ? AND o.buyer_id = ?`, strings.ToUpper(strings.TrimSpace(args.OrderItemID)), args.BuyerID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("item %q is not in one of this buyer's orders", args.OrderItemID)
	}
	if err != nil {
		return nil, err
	}
	if it.String("order_status") != "delivered" || it.IsNull("return_deadline") {
		return nil, fmt.Errorf("order %s is not delivered yet", it.String("order_id"))
	}
	if today := sdk.Now().UTC().Format("2006-01-02"); today > it.String("return_deadline") {
		return nil, fmt.Errorf("the return deadline of this item was %s", it.String("return_deadline"))
	}
	if r, err := sdk.QueryRow(`SELECT id FROM returns WHERE order_item_id = ? AND status NOT IN ('refunded','exchanged','cancelled')`, it.String("item_id")); err == nil {
		return nil, fmt.Errorf("this item already has an open return (%s)", r.String("id"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return nil, fmt.Errorf("give the buyer's reason for the return")
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	var exchange any
	amount := 0.0
	switch kind {
	case "refund":
		amount = math.Round(it.Float("unit_price")*float64(it.Int("quantity"))*100) / 100
	case "exchange":
		size := strings.TrimSpace(args.NewSize)
		v, err := sdk.QueryRow(`SELECT id, size, stock FROM variants WHERE product_id = ? AND lower(size) = ?`, it.String("product_id"), strings.ToLower(size))
		if err == sdk.ErrNoRows {
			return nil, fmt.Errorf("%s has no size %q", it.String("product"), size)
		}
		if err != nil {
			return nil, err
		}
		if v.String("size") == it.String("size") {
			return nil, fmt.Errorf("the item is already size %s", v.String("size"))
		}
		if v.Int("stock") < 1 {
			return nil, fmt.Errorf("size %s of %s is out of stock", v.String("size"), it.String("product"))
		}
		if _, err := sdk.Exec(`UPDATE variants SET stock = stock - 1 WHERE id = ?`, v.String("id")); err != nil {
			return nil, err
		}
		exchange = v.String("id")
	default:
		return nil, fmt.Errorf("kind must be refund or exchange, not %q", args.Kind)
	}
	rows, err := sdk.Query(`SELECT id FROM returns WHERE id LIKE 'RT-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "RT-")); err == nil && n > max {
			max = n
		}
	}
	id := fmt.Sprintf("RT-%d", max+1)
	if _, err := sdk.Exec(`INSERT INTO returns (id, order_item_id, buyer_id, kind, exchange_variant_id, reason, status, refund_amount, created_at) VALUES (?, ?, ?, ?, ?, ?, 'requested', ?, ?)`,
		id, it.String("item_id"), args.BuyerID, kind, exchange, reason, amount, sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	return map[string]any{"return_id": id, "kind": kind, "status": "requested", "refund_amount": amount}, nil
}

// CancelReturnArgs name a return.
type CancelReturnArgs struct {
	// The buyer id verify_buyer returned.
	BuyerID string `json:"buyer_id"`
	// Return id such as RT-801.
	ReturnID string `json:"return_id"`
}

// CancelReturn cancels a requested return, releasing a reserved exchange unit.
func CancelReturn(args CancelReturnArgs) (map[string]any, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return nil, err
	}
	r, err := sdk.QueryRow(`SELECT id, status, exchange_variant_id FROM returns WHERE id = ? AND buyer_id = ?`, strings.ToUpper(strings.TrimSpace(args.ReturnID)), args.BuyerID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("return %q is not one of this buyer's returns", args.ReturnID)
	}
	if err != nil {
		return nil, err
	}
	if r.String("status") != "requested" {
		return nil, fmt.Errorf("return %s is %s and can no longer be cancelled", r.String("id"), r.String("status"))
	}
	if !r.IsNull("exchange_variant_id") {
		if _, err := sdk.Exec(`UPDATE variants SET stock = stock + 1 WHERE id = ?`, r.String("exchange_variant_id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE returns SET status = 'cancelled' WHERE id = ?`, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"return_id": r.String("id"), "status": "cancelled"}, nil
}
