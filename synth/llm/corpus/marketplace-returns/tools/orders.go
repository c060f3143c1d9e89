package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyBuyerArgs are the arguments of verify_buyer.
type VerifyBuyerArgs struct {
	// The buyer's email.
	Email string `json:"email"`
	// Order number such as MK-3001.
	OrderID string `json:"order_id"`
}

// VerifyBuyer verifies a buyer by email and one of their order numbers.
func VerifyBuyer(args VerifyBuyerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT b.id AS buyer_id, b.name FROM buyers b JOIN orders o ON o.buyer_id = b.id WHERE lower(b.email) = ? AND o.id = ?`,
		strings.ToLower(strings.TrimSpace(args.Email)), strings.ToUpper(strings.TrimSpace(args.OrderID)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the email and order number do not match a buyer's order")
	}
	return row, err
}

func buyerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM buyers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no buyer has the id %q", id)
	}
	return err
}

// itemColumns select an order item with its product, size and return deadline.
const itemColumns = `SELECT oi.id AS item_id, oi.order_id, p.name AS product, v.size, oi.quantity, oi.unit_price, v.product_id, o.status AS order_status,
	CASE WHEN o.delivered_on IS NULL THEN NULL ELSE date(o.delivered_on, '+' || s.return_window_days || ' days') END AS return_deadline
	FROM order_items oi JOIN orders o ON o.id = oi.order_id JOIN variants v ON v.id = oi.variant_id JOIN products p ON p.id = v.product_id JOIN sellers s ON s.id = p.seller_id`

// GetOrderArgs name an order.
type GetOrderArgs struct {
	// The buyer id verify_buyer returned.
	BuyerID string `json:"buyer_id"`
	// Order number.
	OrderID string `json:"order_id"`
}

// GetOrder returns one of the buyer's orders with its items and return deadlines.
func GetOrder(args GetOrderArgs) (map[string]any, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return nil, err
	}
	o, err := sdk.QueryRow(`SELECT id, status, delivered_on FROM orders WHERE id = ? AND buyer_id = ?`, strings.ToUpper(strings.TrimSpace(args.OrderID)), args.BuyerID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("order %q is not one of this buyer's orders", args.OrderID)
	}
	if err != nil {
		return nil, err
	}
	items, err := sdk.Query(itemColumns+` WHERE oi.order_id = ? ORDER BY oi.id`, o.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "status": o.String("status"), "delivered_on": o.Value("delivered_on"), "items": items}, nil
}

// BuyerArgs name a buyer.
type BuyerArgs struct {
	// The buyer id verify_buyer returned.
	BuyerID string `json:"buyer_id"`
}

// ListReturns lists the buyer's returns.
func ListReturns(args BuyerArgs) (sdk.Rows, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS return_id, oi.order_id, r.order_item_id, p.name AS product, r.kind, nv.size AS new_size, r.status, r.refund_amount
		FROM returns r JOIN order_items oi ON oi.id = r.order_item_id JOIN variants v ON v.id = oi.variant_id JOIN products p ON p.id = v.product_id
		LEFT JOIN variants nv ON nv.id = r.exchange_variant_id WHERE r.buyer_id = ? ORDER BY r.id`, args.BuyerID)
}

// CheckSizesArgs name a product.
type CheckSizesArgs struct {
	// Product name such as Fleece Hoodie.
	ProductName string `json:"product_name"`
}

// CheckSizes lists a product's sizes and stock.
func CheckSizes(args CheckSizesArgs) (sdk.Rows, error) {
	p, err := sdk.QueryRow(`SELECT id FROM products WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(args.ProductName)))
	if err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no product is called %q", args.ProductName)
	}
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT size, price, stock FROM variants WHERE product_id = ? ORDER BY id`, p.String("id"))
}
