package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// today is the environment clock's date, YYYY-MM-DD.
func today() string { return sdk.Now().UTC().Format("2006-01-02") }

func money(x float64) float64 { return math.Round(x*100) / 100 }

// nextID returns the next id of the form PREFIX-N in a table.
func nextID(table, prefix string) (string, error) {
	rows, err := sdk.Query(`SELECT id FROM `+table+` WHERE id LIKE ?`, prefix+"%")
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), prefix)); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("%s%d", prefix, max+1), nil
}

// visitStart is when a slot's visit starts, in UTC.
func visitStart(date, start string) (time.Time, error) {
	return time.Parse("2006-01-02 15:04", date+" "+start)
}

// VerifyVisitorArgs are the arguments of verify_visitor.
type VerifyVisitorArgs struct {
	// The visitor's email.
	Email string `json:"email"`
	// Membership number such as M-2001.
	MembershipID string `json:"membership_id,omitempty"`
	// Order number such as O-5001.
	OrderID string `json:"order_id,omitempty"`
}

// VerifyVisitor verifies a visitor from their email and a membership or order number.
func VerifyVisitor(args VerifyVisitorArgs) (map[string]any, error) {
	v, err := sdk.QueryRow(`SELECT id, name FROM visitors WHERE lower(email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no visitor has the email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	id := v.String("id")
	switch {
	case strings.TrimSpace(args.MembershipID) != "":
		_, err = sdk.QueryRow(`SELECT id FROM memberships WHERE id = ? AND visitor_id = ?`, strings.ToUpper(strings.TrimSpace(args.MembershipID)), id)
	case strings.TrimSpace(args.OrderID) != "":
		_, err = sdk.QueryRow(`SELECT id FROM orders WHERE id = ? AND visitor_id = ?`, strings.ToUpper(strings.TrimSpace(args.OrderID)), id)
	default:
		return nil, fmt.Errorf("give the visitor's membership number or one of their order numbers")
	}
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the membership or order number does not belong to %s", args.Email)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{"visitor_id": id, "name": v.String("name")}
	m, err := sdk.QueryRow(`SELECT id AS membership_id, tier, status, expires_on FROM memberships WHERE visitor_id = ?`, id)
	if err == nil {
		out["membership"] = m
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	return out, nil
}

func visitorExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM visitors WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no visitor has the id %q", id)
	}
	return err
}

// VisitorArgs name a verified visitor.
type VisitorArgs struct {
	// The visitor id verify_visitor returned.
	VisitorID string `json:"visitor_id"`
}

const ticketColumns = `SELECT t.id AS ticket_id, t.order_id, e.title AS exhibition, s.visit_date, s.start_time, t.ticket_type, t.price, t.status
	FROM tickets t JOIN orders o ON o.id = t.order_id JOIN slots s ON s.id = t.slot_id JOIN exhibitions e ON e.id = s.exhibition_id`

// ListOrders lists the visitor's orders and their tickets.
func ListOrders(args VisitorArgs) (map[string]any, error) {
	if err := visitorExists(args.VisitorID); err != nil {
		return nil, err
	}
	orders, err := sdk.Query(`SELECT id AS order_id, created_at, total, status FROM orders WHERE visitor_id = ? ORDER BY id`, args.VisitorID)
	if err != nil {
		return nil, err
	}
	tickets, err := sdk.Query(ticketColumns+` WHERE o.visitor_id = ? ORDER BY t.id`, args.VisitorID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"orders": orders, "tickets": tickets}, nil
}

// GetOrderArgs name one order.
type GetOrderArgs struct {
	// The visitor id verify_visitor returned.
	VisitorID string `json:"visitor_id"`
	// Order number such as O-5003.
	OrderID string `json:"order_id"`
}

// GetOrder returns one of the visitor's orders with its tickets.
func GetOrder(args GetOrderArgs) (map[string]any, error) {
	o, err := visitorOrder(args.VisitorID, args.OrderID)
	if err != nil {
		return nil, err
	}
	tickets, err := sdk.Query(ticketColumns+` WHERE t.order_id = ? ORDER BY t.id`, o.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "created_at": o.String("created_at"), "total": o.Float("total"), "status": o.String("status"), "tickets": tickets}, nil
}

func visitorOrder(visitorID, orderID string) (sdk.Row, error) {
	if err := visitorExists(visitorID); err != nil {
		return sdk.Row{}, err
	}
	o, err := sdk.QueryRow(`SELECT id, created_at, total, status FROM orders WHERE id = ? AND visitor_id = ?`, strings.ToUpper(strings.TrimSpace(orderID)), visitorID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("order %q is not one of this visitor's orders", orderID)
	}
	return o, err
}

// RenewMembership renews the visitor's membership for a year.
func RenewMembership(args VisitorArgs) (map[string]any, error) {
	if err := visitorExists(args.VisitorID); err != nil {
		return nil, err
	}
	m, err := sdk.QueryRow(`SELECT id, annual_fee, expires_on FROM memberships WHERE visitor_id = ?`, args.VisitorID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("this visitor has no membership to renew")
	}
	if err != nil {
		return nil, err
	}
	from, err := time.Parse("2006-01-02", m.String("expires_on"))
	if err != nil {
		return nil, fmt.Errorf("membership %s has a bad expiry date %q", m.String("id"), m.String("expires_on"))
	}
	now, _ := time.Parse("2006-01-02", today())
	if from.Before(now) {
		from = now
	}
	newExpiry := from.AddDate(1, 0, 0).Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE memberships SET expires_on = ?, status = 'active' WHERE id = ?`, newExpiry, m.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO membership_renewals (membership_id, renewed_at, new_expires_on, fee) VALUES (?, ?, ?, ?)`,
		m.String("id"), sdk.Now().UTC().Format(time.RFC3339), newExpiry, m.Float("annual_fee")); err != nil {
		return nil, err
	}
	return map[string]any{"membership_id": m.String("id"), "status": "active", "expires_on": newExpiry, "fee": m.Float("annual_fee")}, nil
}
