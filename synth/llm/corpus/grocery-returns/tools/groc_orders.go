package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// FindCustomerArgs are the arguments of find_customer.
type FindCustomerArgs struct {
	// The customer's email address.
	Email string `json:"email"`
}

// FindCustomer finds a customer by email.
func FindCustomer(args FindCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, postcode FROM customers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no customer has the email %s", args.Email)
	}
	return row, err
}

// ListOrdersArgs are the arguments of list_orders.
type ListOrdersArgs struct {
	// The customer's id from find_customer.
	CustomerID string `json:"customer_id"`
}

// ListOrders lists a customer's orders with their slot and total.
func ListOrders(args ListOrdersArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, args.CustomerID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no customer has the id %s", args.CustomerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT o.id, o.status, o.slot_id, s.date, s."window" AS delivery_window, s.cutoff_at, o.promo_code, o.delivered_at,
		round(COALESCE((SELECT sum(i.quantity * i.unit_price) FROM order_items i WHERE i.order_id = o.id), 0) * (100 - COALESCE(p.percent_off, 0)) / 100.0, 2) AS total
		FROM orders o JOIN delivery_slots s ON s.id = o.slot_id LEFT JOIN promo_codes p ON p.code = o.promo_code
		WHERE o.customer_id = ? ORDER BY s.date, s."window"`, args.CustomerID)
}

// orderRow reads an order with its slot and promo.
func orderRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT o.id, o.customer_id, o.status, o.slot_id, s.date, s."window" AS delivery_window, s.cutoff_at,
		COALESCE(o.promo_code, '') AS promo_code, COALESCE(p.percent_off, 0) AS percent_off, COALESCE(o.delivered_at, '') AS delivered_at
		FROM orders o JOIN delivery_slots s ON s.id = o.slot_id LEFT JOIN promo_codes p ON p.code = o.promo_code WHERE o.id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no order has the id %s", id)
	}
	return row, err
}

// GetOrderArgs are the arguments of get_order.
type GetOrderArgs struct {
	// The order's id, such as o-1001.
	OrderID string `json:"order_id"`
}

// GetOrder returns an order with its items, totals, slot and refunds.
func GetOrder(args GetOrderArgs) (map[string]any, error) {
	return orderDetail(args.OrderID)
}

func orderDetail(id string) (map[string]any, error) {
	o, err := orderRow(id)
	if err != nil {
		return nil, err
	}
	items, err := sdk.Query(`SELECT i.sku, pr.name, i.quantity, i.unit_price, round(i.quantity * i.unit_price, 2) AS amount
		FROM order_items i JOIN products pr ON pr.sku = i.sku WHERE i.order_id = ? ORDER BY i.id`, o.String("id"))
	if err != nil {
		return nil, err
	}
	subtotal := 0.0
	for _, it := range items.All() {
		subtotal += float64(it.Int("quantity")) * it.Float("unit_price")
	}
	subtotal = round2(subtotal)
	discount := round2(subtotal * o.Float("percent_off") / 100)
	refunds, err := sdk.Query(`SELECT sku, reason, amount, requested_at FROM refunds WHERE order_id = ? ORDER BY id`, o.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id": o.String("id"), "status": o.String("status"), "slot_id": o.String("slot_id"), "date": o.String("date"),
		"delivery_window": o.String("delivery_window"), "cutoff_at": o.String("cutoff_at"), "promo_code": o.String("promo_code"),
		"delivered_at": o.String("delivered_at"), "items": items, "subtotal": subtotal, "discount": discount,
		"total": round2(subtotal - discount), "refunds": refunds,
	}, nil
}

// editable checks that an order can still be changed.
func editable(id string) (sdk.Row, error) {
	o, err := orderRow(id)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.String("status") != "scheduled" {
		return sdk.Row{}, fmt.Errorf("order %s is %s: only scheduled orders can be changed", o.String("id"), o.String("status"))
	}
	cutoff, err := time.Parse(time.RFC3339, o.String("cutoff_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if !sdk.Now().Before(cutoff) {
		return sdk.Row{}, fmt.Errorf("order %s can no longer be changed: its slot's cutoff was %s", o.String("id"), o.String("cutoff_at"))
	}
	return o, nil
}

// SearchProductsArgs are the arguments of search_products.
type SearchProductsArgs struct {
	// Part of the product name, such as Oat Milk.
	Query string `json:"query"`
}

// SearchProducts lists products whose name contains the text.
func SearchProducts(args SearchProductsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT sku, name, price, in_stock = 1 AS in_stock FROM products WHERE lower(name) LIKE '%' || lower(?) || '%' ORDER BY name`, strings.TrimSpace(args.Query))
}

// SetItemQuantityArgs are the arguments of set_item_quantity.
type SetItemQuantityArgs struct {
	// The order's id.
	OrderID string `json:"order_id"`
	// The product's sku from search_products or get_order.
	SKU string `json:"sku"`
	// The new quantity; 0 removes the item.
	Quantity int `json:"quantity"`
}

// SetItemQuantity adds, changes or removes an item of a scheduled order.
func SetItemQuantity(args SetItemQuantityArgs) (map[string]any, error) {
	o, err := editable(args.OrderID)
	if err != nil {
		return nil, err
	}
	if args.Quantity < 0 {
		return nil, fmt.Errorf("the quantity cannot be negative")
	}
	p, err := sdk.QueryRow(`SELECT sku, name, price, in_stock FROM products WHERE sku = ?`, strings.TrimSpace(args.SKU))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no product has the sku %s", args.SKU)
	} else if err != nil {
		return nil, err
	}
	line, err := sdk.QueryRow(`SELECT id FROM order_items WHERE order_id = ? AND sku = ?`, o.String("id"), p.String("sku"))
	switch {
	case err == sdk.ErrNoRows:
		if args.Quantity == 0 {
			return nil, fmt.Errorf("order %s has no %s", o.String("id"), p.String("name"))
		}
		if p.Int("in_stock") != 1 {
			return nil, fmt.Errorf("%s is out of stock", p.String("name"))
		}
		if _, err := sdk.Exec(`INSERT INTO order_items (order_id, sku, quantity, unit_price) VALUES (?, ?, ?, ?)`, o.String("id"), p.String("sku"), args.Quantity, p.Float("price")); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case args.Quantity == 0:
		if _, err := sdk.Exec(`DELETE FROM order_items WHERE id = ?`, line.Int("id")); err != nil {
			return nil, err
		}
	default:
		if _, err := sdk.Exec(`UPDATE order_items SET quantity = ? WHERE id = ?`, args.Quantity, line.Int("id")); err != nil {
			return nil, err
		}
	}
	return orderDetail(o.String("id"))
}
