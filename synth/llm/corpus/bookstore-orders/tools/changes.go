package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type UpdateOrderLineArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
	// Book id
	BookID string `json:"book_id"`
	// New quantity (0 removes the line)
	Quantity int `json:"quantity"`
}

// UpdateOrderLine sets the quantity of a book on a placed or preordered order (0 removes the line; one line must stay), adjusting stock, discount and total; store credit is charged or refunded the difference.
func UpdateOrderLine(args UpdateOrderLineArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if st := o.String("status"); st != "placed" && st != "preordered" {
		return nil, fmt.Errorf("order %s is %s: it can no longer be changed", o.String("id"), st)
	}
	if args.Quantity < 0 {
		return nil, errors.New("quantity cannot be negative")
	}
	l, err := sdk.QueryRow(`SELECT l.id, l.quantity, b.stock, b.status, b.title FROM order_lines l JOIN books b ON b.id = l.book_id WHERE l.order_id = ? AND l.book_id = ?`, o.String("id"), strings.TrimSpace(args.BookID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("book %s is not on order %s", args.BookID, o.String("id"))
	}
	if err != nil {
		return nil, err
	}
	delta := int64(args.Quantity) - l.Int("quantity")
	if o.String("status") == "placed" && delta > l.Int("stock") {
		return nil, fmt.Errorf("only %d more copies of %s are in stock", l.Int("stock"), l.String("title"))
	}
	if args.Quantity == 0 {
		n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM order_lines WHERE order_id = ?`, o.String("id"))
		if err != nil {
			return nil, err
		}
		if n.Int("n") <= 1 {
			return nil, errors.New("this is the order's only line: cancel the order instead")
		}
		_, err = sdk.Exec(`DELETE FROM order_lines WHERE id = ?`, l.Int("id"))
		if err != nil {
			return nil, err
		}
	} else if _, err := sdk.Exec(`UPDATE order_lines SET quantity = ? WHERE id = ?`, args.Quantity, l.Int("id")); err != nil {
		return nil, err
	}
	if o.String("status") == "placed" {
		if _, err := sdk.Exec(`UPDATE books SET stock = stock - ? WHERE id = ?`, delta, strings.TrimSpace(args.BookID)); err != nil {
			return nil, err
		}
	}
	if err := recalc(o.String("id")); err != nil {
		return nil, err
	}
	if o.String("payment") == "credit" {
		n, err := sdk.QueryRow(`SELECT total FROM orders WHERE id = ?`, o.String("id"))
		if err != nil {
			return nil, err
		}
		diff := round2(n.Float("total") - o.Float("total"))
		c, err := loadCustomer(args.CustomerID)
		if err != nil {
			return nil, err
		}
		if c.Float("store_credit") < diff {
			return nil, fmt.Errorf("the store credit (%.2f) does not cover the extra %.2f", c.Float("store_credit"), diff)
		}
		if _, err := sdk.Exec(`UPDATE customers SET store_credit = ROUND(store_credit - ?, 2) WHERE id = ?`, diff, args.CustomerID); err != nil {
			return nil, err
		}
	}
	return orderView(o.String("id"))
}

type CancelOrderArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
}

// CancelOrder cancels a placed or preordered order, restocks it and refunds the total the way it was paid (store credit back as credit).
func CancelOrder(args CancelOrderArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if st := o.String("status"); st != "placed" && st != "preordered" {
		return nil, fmt.Errorf("order %s is %s: it can no longer be cancelled", o.String("id"), st)
	}
	if o.String("status") == "placed" {
		if _, err := sdk.Exec(`UPDATE books SET stock = stock + (SELECT SUM(quantity) FROM order_lines l WHERE l.order_id = ? AND l.book_id = books.id) WHERE id IN (SELECT book_id FROM order_lines WHERE order_id = ?)`, o.String("id"), o.String("id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'cancelled' WHERE id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO refunds (order_id, book_id, quantity, amount, method, reason, created_at) VALUES (?, NULL, 0, ?, ?, 'cancellation', ?)`, o.String("id"), o.Float("total"), o.String("payment"), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if o.String("payment") == "credit" {
		if _, err := sdk.Exec(`UPDATE customers SET store_credit = ROUND(store_credit + ?, 2) WHERE id = ?`, o.Float("total"), args.CustomerID); err != nil {
			return nil, err
		}
	}
	return map[string]any{"order_id": o.String("id"), "status": "cancelled", "refund": o.Float("total"), "refunded_to": o.String("payment")}, nil
}

type ReturnBookArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Order id
	OrderID string `json:"order_id"`
	// Book id
	BookID string `json:"book_id"`
	// Copies to return (default 1)
	Quantity int `json:"quantity,omitempty"`
}

// ReturnBook returns copies of a book from a delivered order within 30 days of delivery, refunding what was paid for them (less the order's discount share) the way the order was paid.
func ReturnBook(args ReturnBookArgs) (map[string]any, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "delivered" || o.IsNull("delivered_on") {
		return nil, fmt.Errorf("order %s is %s: only delivered books can be returned", o.String("id"), o.String("status"))
	}
	days, err := daysSince(o.String("delivered_on"))
	if err != nil {
		return nil, err
	}
	if days > 30 {
		return nil, fmt.Errorf("order %s was delivered on %s, more than 30 days ago: the return window has closed", o.String("id"), o.String("delivered_on"))
	}
	qty := args.Quantity
	if qty == 0 {
		qty = 1
	}
	if qty < 0 {
		return nil, errors.New("quantity must be positive")
	}
	l, err := sdk.QueryRow(`SELECT id, quantity, returned, unit_price FROM order_lines WHERE order_id = ? AND book_id = ?`, o.String("id"), strings.TrimSpace(args.BookID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("book %s is not on order %s", args.BookID, o.String("id"))
	}
	if err != nil {
		return nil, err
	}
	if int64(qty) > l.Int("quantity")-l.Int("returned") {
		return nil, fmt.Errorf("only %d copies of that book can still be returned", l.Int("quantity")-l.Int("returned"))
	}
	share := 1.0
	if o.Float("subtotal") > 0 {
		share = o.Float("total") / o.Float("subtotal")
	}
	amount := round2(l.Float("unit_price") * float64(qty) * share)
	if _, err := sdk.Exec(`UPDATE order_lines SET returned = returned + ? WHERE id = ?`, qty, l.Int("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE books SET stock = stock + ? WHERE id = ?`, qty, strings.TrimSpace(args.BookID)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO refunds (order_id, book_id, quantity, amount, method, reason, created_at) VALUES (?, ?, ?, ?, ?, 'return', ?)`, o.String("id"), strings.TrimSpace(args.BookID), qty, amount, o.String("payment"), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if o.String("payment") == "credit" {
		if _, err := sdk.Exec(`UPDATE customers SET store_credit = ROUND(store_credit + ?, 2) WHERE id = ?`, amount, args.CustomerID); err != nil {
			return nil, err
		}
	}
	return map[string]any{"order_id": o.String("id"), "book_id": strings.TrimSpace(args.BookID), "returned": qty, "refund": amount, "refunded_to": o.String("payment")}, nil
}
