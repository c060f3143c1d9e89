package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindCustomerArgs are the arguments of find_customer.
type FindCustomerArgs struct {
	// The customer's email address.
	Email string `json:"email"`
}

// FindCustomer finds a customer by email.
func FindCustomer(args FindCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM customers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no customer has the email %s", args.Email)
	}
	return row, err
}

func customerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no customer has the id %s", id)
	}
	return err
}

// ListRestaurants lists the restaurants with opening, minimum order and fee.
func ListRestaurants() (sdk.Rows, error) {
	return sdk.Query(`SELECT id, name, is_open = 1 AS open, min_order, delivery_fee FROM restaurants ORDER BY name`)
}

// GetMenuArgs are the arguments of get_menu.
type GetMenuArgs struct {
	// The restaurant's name.
	Restaurant string `json:"restaurant"`
}

// GetMenu lists a restaurant's dishes.
func GetMenu(args GetMenuArgs) (sdk.Rows, error) {
	r, err := sdk.QueryRow(`SELECT id FROM restaurants WHERE lower(name) = lower(?)`, strings.TrimSpace(args.Restaurant))
	if err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no restaurant is called %s", args.Restaurant)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS dish_id, name, price, available = 1 AS available FROM dishes WHERE restaurant_id = ? ORDER BY name`, r.String("id"))
}

// ListOrdersArgs are the arguments of list_orders.
type ListOrdersArgs struct {
	// The customer's id from find_customer.
	CustomerID string `json:"customer_id"`
}

// ListOrders lists the customer's orders, newest first.
func ListOrders(args ListOrdersArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT o.id AS order_id, r.name AS restaurant, o.status, o.subtotal, o.discount, o.total, o.rating, o.placed_at
		FROM orders o JOIN restaurants r ON r.id = o.restaurant_id WHERE o.customer_id = ? ORDER BY o.placed_at DESC`, args.CustomerID)
}
