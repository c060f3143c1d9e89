package tools

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetOrderArgs selects one order.
type GetOrderArgs struct {
	// The order id.
	OrderID int `json:"order_id"`
}

// GetOrder returns one order (a point read by primary key).
func GetOrder(args GetOrderArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, user_id, product_id, quantity, status, created_at FROM orders WHERE id = ?`, args.OrderID)
	if errors.Is(err, sdk.ErrNoRows) {
		return row, fmt.Errorf("order %d not found", args.OrderID)
	}
	return row, err
}

// SetOrderStatusArgs changes an order's status.
type SetOrderStatusArgs struct {
	// The order id.
	OrderID int `json:"order_id"`
	// The new status.
	Status string `json:"status" enum:"pending,shipped,delivered,cancelled"`
}

// SetOrderStatus updates one order's status (a single-row write).
func SetOrderStatus(args SetOrderStatusArgs) (string, error) {
	res, err := sdk.Exec(`UPDATE orders SET status = ? WHERE id = ?`, args.Status, args.OrderID)
	if err != nil {
		return "", err
	}
	if res.RowsAffected == 0 {
		return "", fmt.Errorf("order %d not found", args.OrderID)
	}
	return "ok", nil
}

// ListOrdersArgs selects a user's orders.
type ListOrdersArgs struct {
	// The user id.
	UserID int `json:"user_id"`
	// At most this many orders (default 10).
	Limit int `json:"limit,omitempty"`
}

// ListOrders lists a user's most recent orders.
func ListOrders(args ListOrdersArgs) (sdk.Rows, error) {
	limit := args.Limit
	if limit <= 0 {
		limit = 10
	}
	return sdk.Query(`SELECT id, product_id, quantity, status FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?`, args.UserID, limit)
}
