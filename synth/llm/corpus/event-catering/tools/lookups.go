package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyClientArgs are the arguments of verify_client.
type VerifyClientArgs struct {
	// the client's email
	Email string `json:"email"`
	// one of the client's order numbers, such as CO-2001
	OrderID string `json:"order_id"`
}

// VerifyClient verifies a client by email and order number: it succeeds when
// the order belongs to the client with that email, and returns the client's
// id and name. Call it before anything else.
func VerifyClient(args VerifyClientArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT c.id AS client_id, c.name FROM clients c JOIN orders o ON o.client_id = c.id WHERE lower(c.email) = lower(?) AND o.id = ?", strings.TrimSpace(args.Email), strings.ToUpper(strings.TrimSpace(args.OrderID)))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, errors.New("the email and order number do not match any client")
	}
	return c, err
}

// ListPackages lists the menu packages (id, name, price per guest) and the
// dietary options (id, name, surcharge per meal).
func ListPackages() (map[string]any, error) {
	p, err := sdk.Query("SELECT id, name, price_per_guest FROM packages ORDER BY price_per_guest")
	if err != nil {
		return nil, err
	}
	d, err := sdk.Query("SELECT id, name, surcharge FROM dietary_options ORDER BY id")
	if err != nil {
		return nil, err
	}
	return map[string]any{"packages": p, "dietary_options": d}, nil
}

// ClientArgs name a client.
type ClientArgs struct {
	// client id
	ClientID string `json:"client_id"`
}

// ListClientOrders lists a client's orders: order number, package, event
// date, venue, guests, status, discount, total, paid and balance.
func ListClientOrders(args ClientArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow("SELECT id FROM clients WHERE id = ?", args.ClientID); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no client with id %q", args.ClientID)
	} else if err != nil {
		return nil, err
	}
	rows, err := sdk.Query("SELECT id FROM orders WHERE client_id = ? ORDER BY event_date", args.ClientID)
	if err != nil {
		return nil, err
	}
	orders := []any{}
	for _, r := range rows.All() {
		v, err := orderView(r.String("id"))
		if err != nil {
			return nil, err
		}
		orders = append(orders, v)
	}
	return map[string]any{"client_id": args.ClientID, "orders": orders}, nil
}

// OrderArgs name an order.
type OrderArgs struct {
	// order number
	OrderID string `json:"order_id"`
}

// GetOrder returns an order with its dietary meals, total, paid, balance and
// cancellation charge.
func GetOrder(args OrderArgs) (map[string]any, error) {
	return orderView(args.OrderID)
}
