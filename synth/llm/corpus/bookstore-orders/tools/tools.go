package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindCustomerArgs struct {
	// Customer email
	Email string `json:"email"`
}

// FindCustomer finds a customer by email: id, name and store credit balance.
func FindCustomer(args FindCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT id AS customer_id, name, email, store_credit FROM customers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer has the email %s", args.Email)
	}
	return c, err
}

type SearchBooksArgs struct {
	// Words of the title or author
	Query string `json:"query"`
}

// SearchBooks finds books by title or author words: id, price, stock, status (available or preorder) and release date.
func SearchBooks(args SearchBooksArgs) (sdk.Rows, error) {
	q := "%" + strings.ToLower(strings.TrimSpace(args.Query)) + "%"
	return sdk.Query(`SELECT id AS book_id, title, author, price, stock, status, release_date FROM books WHERE lower(title) LIKE ? OR lower(author) LIKE ? ORDER BY title`, q, q)
}

type CustomerArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
}

// ListOrders lists a customer's orders with status, payment, totals, code, dates and lines (book id, title, quantity, unit price, returned).
func ListOrders(args CustomerArgs) (sdk.Rows, error) {
	if _, err := loadCustomer(args.CustomerID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT o.id AS order_id, o.status, o.payment, o.subtotal, o.discount, o.total, COALESCE(o.code, '') AS code, o.created_at, COALESCE(o.delivered_on, '') AS delivered_on,
		(SELECT group_concat(l.book_id || ' ' || b.title || ' x' || l.quantity || ' at ' || printf('%.2f', l.unit_price) || CASE WHEN l.returned > 0 THEN ' (' || l.returned || ' returned)' ELSE '' END, '; ')
		 FROM order_lines l JOIN books b ON b.id = l.book_id WHERE l.order_id = o.id) AS lines
		FROM orders o WHERE o.customer_id = ? ORDER BY o.created_at`, args.CustomerID)
}

type PlaceOrderArgs struct {
	// Customer id
	CustomerID string `json:"customer_id"`
	// Book ids
	BookIDs []string `json:"book_ids"`
	// Copies of each book, in the same order
	Quantities []int `json:"quantities"`
	// credit or card
	Payment string `json:"payment"`
	// Discount code
	Code string `json:"code,omitempty"`
}

// PlaceOrder orders book_ids[i] in quantities[i] copies, paid by store credit or card, with an optional discount code (once per customer, subtotal at least its minimum); available books need stock, pre-order books are ordered for release, not mixed with available ones.
func PlaceOrder(args PlaceOrderArgs) (map[string]any, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	if len(args.BookIDs) == 0 || len(args.BookIDs) != len(args.Quantities) {
		return nil, errors.New("give one quantity for each book id")
	}
	if args.Payment != "credit" && args.Payment != "card" {
		return nil, fmt.Errorf("unknown payment %q: use credit or card", args.Payment)
	}
	seen := map[string]bool{}
	pre, avail := 0, 0
	subtotal := 0.0
	prices := make([]float64, len(args.BookIDs))
	for i, id := range args.BookIDs {
		id = strings.TrimSpace(id)
		if seen[id] {
			return nil, fmt.Errorf("book %s is listed twice", id)
		}
		seen[id] = true
		if args.Quantities[i] < 1 {
			return nil, fmt.Errorf("the quantity of %s must be at least 1", id)
		}
		b, err := sdk.QueryRow(`SELECT * FROM books WHERE id = ?`, id)
		if errors.Is(err, sdk.ErrNoRows) {
			return nil, fmt.Errorf("book %s not found", id)
		}
		if err != nil {
			return nil, err
		}
		if b.String("status") == "preorder" {
			pre++
		} else {
			avail++
			if int64(args.Quantities[i]) > b.Int("stock") {
				return nil, fmt.Errorf("only %d copies of %s are in stock", b.Int("stock"), b.String("title"))
			}
		}
		prices[i] = b.Float("price")
		subtotal += b.Float("price") * float64(args.Quantities[i])
	}
	if pre > 0 && avail > 0 {
		return nil, errors.New("pre-order books and available books must be ordered separately")
	}
	subtotal = round2(subtotal)
	discount := 0.0
	code := strings.ToUpper(strings.TrimSpace(args.Code))
	if code != "" {
		d, err := sdk.QueryRow(`SELECT * FROM discount_codes WHERE upper(code) = ?`, code)
		if errors.Is(err, sdk.ErrNoRows) || (err == nil && d.Int("active") != 1) {
			return nil, fmt.Errorf("discount code %s is not valid", code)
		}
		if err != nil {
			return nil, err
		}
		if _, err := sdk.QueryRow(`SELECT code FROM code_uses WHERE code = ? AND customer_id = ?`, code, c.String("id")); err == nil {
			return nil, fmt.Errorf("discount code %s has already been used by this customer", code)
		}
		if subtotal < d.Float("min_subtotal") {
			return nil, fmt.Errorf("discount code %s needs a subtotal of at least %.2f; this order's is %.2f", code, d.Float("min_subtotal"), subtotal)
		}
		discount = round2(subtotal * d.Float("percent") / 100)
	}
	total := round2(subtotal - discount)
	if args.Payment == "credit" && c.Float("store_credit") < total {
		return nil, fmt.Errorf("the store credit (%.2f) does not cover the total of %.2f", c.Float("store_credit"), total)
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 500) + 1 AS n FROM orders WHERE id LIKE 'O-%'`)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("O-%d", next.Int("n"))
	status := "placed"
	if pre > 0 {
		status = "preordered"
	}
	var codeArg any
	if code != "" {
		codeArg = code
	}
	if _, err := sdk.Exec(`INSERT INTO orders (id, customer_id, status, payment, subtotal, discount, total, code, created_at, delivered_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
		id, c.String("id"), status, args.Payment, subtotal, discount, total, codeArg, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	for i, bid := range args.BookIDs {
		bid = strings.TrimSpace(bid)
		if _, err := sdk.Exec(`INSERT INTO order_lines (order_id, book_id, quantity, unit_price, returned) VALUES (?, ?, ?, ?, 0)`, id, bid, args.Quantities[i], prices[i]); err != nil {
			return nil, err
		}
		if pre == 0 {
			if _, err := sdk.Exec(`UPDATE books SET stock = stock - ? WHERE id = ?`, args.Quantities[i], bid); err != nil {
				return nil, err
			}
		}
	}
	if code != "" {
		if _, err := sdk.Exec(`INSERT INTO code_uses (code, customer_id, order_id) VALUES (?, ?, ?)`, code, c.String("id"), id); err != nil {
			return nil, err
		}
	}
	if args.Payment == "credit" {
		if _, err := sdk.Exec(`UPDATE customers SET store_credit = ROUND(store_credit - ?, 2) WHERE id = ?`, total, c.String("id")); err != nil {
			return nil, err
		}
	}
	return orderView(id)
}
