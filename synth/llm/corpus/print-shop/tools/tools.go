package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// the customer's email
	Email string `json:"email"`
	// one of the customer's order numbers, such as PO-501
	OrderID string `json:"order_id"`
}

// VerifyCustomer verifies a customer by email and order number: it succeeds
// when the order is the customer's, and returns the customer's id and name.
// Call it before anything else.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT c.id AS customer_id, c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE lower(c.email) = lower(?) AND o.id = ?", strings.TrimSpace(args.Email), strings.ToUpper(strings.TrimSpace(args.OrderID)))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, errors.New("the email and order number do not match any customer")
	}
	return c, err
}

// ListProducts lists the products with their quantities and prices
// (standard paper; premium +20%, express +30%).
func ListProducts() (sdk.Rows, error) {
	return sdk.Query("SELECT p.id AS product_id, p.name, t.quantity, t.price FROM products p JOIN price_tiers t ON t.product_id = p.id ORDER BY p.id, t.quantity")
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListOrders lists a customer's orders: order number, product, quantity,
// paper, express, status, price, cancellation fee and due date.
func ListOrders(args CustomerArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT o.id AS order_id, p.name AS product, o.quantity, o.paper, o.express, o.status, o.price, o.cancel_fee, o.due_date FROM orders o JOIN products p ON p.id = o.product_id WHERE o.customer_id = ? ORDER BY o.id", args.CustomerID)
}

// OrderArgs name an order.
type OrderArgs struct {
	// order number
	OrderID string `json:"order_id"`
}

// GetOrder returns one order with its status, price and due date.
func GetOrder(args OrderArgs) (sdk.Row, error) {
	return getOrder(args.OrderID)
}

// PlaceOrderArgs are the arguments of place_order.
type PlaceOrderArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// flyers, posters or business_cards
	ProductID string `json:"product_id"`
	// a listed quantity
	Quantity int64 `json:"quantity"`
	// standard or premium
	Paper string `json:"paper"`
}

// PlaceOrder places an order awaiting proof approval. It fails when the
// quantity is not one of the product's listed quantities.
func PlaceOrder(args PlaceOrderArgs) (sdk.Row, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	product := strings.TrimSpace(args.ProductID)
	paper := strings.ToLower(strings.TrimSpace(args.Paper))
	price, err := priceFor(product, args.Quantity, paper, false)
	if err != nil {
		return sdk.Row{}, err
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 500) + 1 AS n FROM orders WHERE id LIKE 'PO-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("PO-%d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO orders (id, customer_id, product_id, quantity, paper, express, status, price, cancel_fee, created_at) VALUES (?, ?, ?, ?, ?, 0, 'awaiting_proof', ?, 0, ?)",
		id, args.CustomerID, product, args.Quantity, paper, price, stamp()); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(id)
}

// ApproveProof approves an order's proof and sets its due date (3 working
// days later, or the next working day for express). It fails when the order
// is not awaiting proof.
func ApproveProof(args OrderArgs) (sdk.Row, error) {
	o, err := getOrder(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.String("status") != "awaiting_proof" {
		return sdk.Row{}, fmt.Errorf("order %s is %s, not awaiting proof", o.String("order_id"), o.String("status"))
	}
	now := stamp()
	due, err := dueDate(now, o.Int("express") == 1)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'proof_approved', proof_approved_at = ?, due_date = ? WHERE id = ?", now, due, o.String("order_id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("order_id"))
}

// ChangeOrderArgs are the arguments of change_order.
type ChangeOrderArgs struct {
	// order number
	OrderID string `json:"order_id"`
	// new quantity (0: unchanged)
	Quantity int64 `json:"quantity,omitempty"`
	// new paper (empty: unchanged)
	Paper string `json:"paper,omitempty"`
}

// ChangeOrder changes an order's quantity and/or paper and reprices it. It
// fails when the order is printed or cancelled or the quantity is not listed.
func ChangeOrder(args ChangeOrderArgs) (sdk.Row, error) {
	o, err := openOrder(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	qty, paper := o.Int("quantity"), o.String("paper")
	if args.Quantity != 0 {
		qty = args.Quantity
	}
	if p := strings.ToLower(strings.TrimSpace(args.Paper)); p != "" {
		paper = p
	}
	price, err := priceFor(o.String("product_id"), qty, paper, o.Int("express") == 1)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE orders SET quantity = ?, paper = ?, price = ? WHERE id = ?", qty, paper, price, o.String("order_id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("order_id"))
}

// UpgradeExpress upgrades an order to express (+30%); an approved order is
// then due the next working day. It fails when printed, cancelled or already
// express.
func UpgradeExpress(args OrderArgs) (sdk.Row, error) {
	o, err := openOrder(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.Int("express") == 1 {
		return sdk.Row{}, fmt.Errorf("order %s is already express", o.String("order_id"))
	}
	price, err := priceFor(o.String("product_id"), o.Int("quantity"), o.String("paper"), true)
	if err != nil {
		return sdk.Row{}, err
	}
	var due any
	if !o.IsNull("proof_approved_at") {
		d, err := dueDate(o.String("proof_approved_at"), true)
		if err != nil {
			return sdk.Row{}, err
		}
		due = d
	}
	if _, err := sdk.Exec("UPDATE orders SET express = 1, price = ?, due_date = ? WHERE id = ?", price, due, o.String("order_id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("order_id"))
}

// CancelOrder cancels an order not yet printed: free before proof approval,
// 10.00 after.
func CancelOrder(args OrderArgs) (sdk.Row, error) {
	o, err := openOrder(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	fee := 0.0
	if o.String("status") == "proof_approved" {
		fee = cancelFee
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'cancelled', cancel_fee = ? WHERE id = ?", fee, o.String("order_id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("order_id"))
}
