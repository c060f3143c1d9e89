package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookSessionArgs are the arguments of book_session.
type BookSessionArgs struct {
	// child id
	ChildID string `json:"child_id"`
	// room id
	RoomID string `json:"room_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// BookSession books a full-day session for a child and applies the sibling discount.
func BookSession(args BookSessionArgs) (sdk.Row, error) {
	child, err := getChild(args.ChildID)
	if err != nil {
		return sdk.Row{}, err
	}
	room, err := getRoom(args.RoomID)
	if err != nil {
		return sdk.Row{}, err
	}
	d, err := sessionDay(args.Date)
	if err != nil {
		return sdk.Row{}, err
	}
	date := d.Format("2006-01-02")
	if err := fits(child, room, d); err != nil {
		return sdk.Row{}, err
	}
	if err := freeDay(child.String("id"), date, 0); err != nil {
		return sdk.Row{}, err
	}
	left, err := placesLeft(room, date)
	if err != nil {
		return sdk.Row{}, err
	}
	if left <= 0 {
		return sdk.Row{}, fmt.Errorf("the %s is full on %s", room.String("name"), date)
	}
	res, err := sdk.Exec("INSERT INTO sessions (child_id, room_id, date, status, fee, discount, refund) VALUES (?, ?, ?, 'booked', ?, 0, 0)",
		child.String("id"), room.String("id"), date, room.Float("daily_fee"))
	if err != nil {
		return sdk.Row{}, err
	}
	if err := recomputeWeek(child.String("parent_id"), d); err != nil {
		return sdk.Row{}, err
	}
	return getSession(res.LastInsertID)
}

// SessionArgs name a session.
type SessionArgs struct {
	// session id
	SessionID int64 `json:"session_id"`
}

// CancelSession cancels a booked session, refunded with 7 days' notice.
func CancelSession(args SessionArgs) (sdk.Row, error) {
	s, err := getSession(args.SessionID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("session %d is %s, not booked", args.SessionID, s.String("status"))
	}
	d, err := parseDate(s.String("date"))
	if err != nil {
		return sdk.Row{}, err
	}
	refund := 0.0
	if daysAhead(d) >= noticeDays {
		refund = round2(s.Float("fee") - s.Float("discount"))
	}
	if _, err := sdk.Exec("UPDATE sessions SET status = 'cancelled', refund = ?, cancelled_at = ? WHERE id = ?",
		refund, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), args.SessionID); err != nil {
		return sdk.Row{}, err
	}
	if err := recomputeWeek(s.String("parent_id"), d); err != nil {
		return sdk.Row{}, err
	}
	return getSession(args.SessionID)
}

// MoveSessionArgs are the arguments of move_session.
type MoveSessionArgs struct {
	// session id
	SessionID int64 `json:"session_id"`
	// YYYY-MM-DD
	NewDate string `json:"new_date"`
}

// MoveSession moves a booked session to another weekday in the same room.
func MoveSession(args MoveSessionArgs) (sdk.Row, error) {
	s, err := getSession(args.SessionID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("session %d is %s, not booked", args.SessionID, s.String("status"))
	}
	old, err := parseDate(s.String("date"))
	if err != nil {
		return sdk.Row{}, err
	}
	if daysAhead(old) < noticeDays {
		return sdk.Row{}, fmt.Errorf("the session on %s is less than %d days away and cannot be moved", s.String("date"), noticeDays)
	}
	d, err := sessionDay(args.NewDate)
	if err != nil {
		return sdk.Row{}, err
	}
	date := d.Format("2006-01-02")
	child, err := getChild(s.String("child_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	room, err := getRoom(s.String("room_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if err := fits(child, room, d); err != nil {
		return sdk.Row{}, err
	}
	if err := freeDay(child.String("id"), date, args.SessionID); err != nil {
		return sdk.Row{}, err
	}
	left, err := placesLeft(room, date)
	if err != nil {
		return sdk.Row{}, err
	}
	if left <= 0 {
		return sdk.Row{}, fmt.Errorf("the %s is full on %s", room.String("name"), date)
	}
	if _, err := sdk.Exec("UPDATE sessions SET date = ? WHERE id = ?", date, args.SessionID); err != nil {
		return sdk.Row{}, err
	}
	if err := recomputeWeek(child.String("parent_id"), old); err != nil {
		return sdk.Row{}, err
	}
	if err := recomputeWeek(child.String("parent_id"), d); err != nil {
		return sdk.Row{}, err
	}
	return getSession(args.SessionID)
}

// AddPickupArgs are the arguments of add_pickup.
type AddPickupArgs struct {
	// child id
	ChildID string `json:"child_id"`
	// full name
	Name string `json:"name"`
	// phone number
	Phone string `json:"phone"`
}

// AddPickup adds an authorised pickup person to a child.
func AddPickup(args AddPickupArgs) (sdk.Row, error) {
	child, err := getChild(args.ChildID)
	if err != nil {
		return sdk.Row{}, err
	}
	name, phone := strings.TrimSpace(args.Name), strings.TrimSpace(args.Phone)
	if name == "" || phone == "" {
		return sdk.Row{}, errors.New("a pickup person needs a name and a phone number")
	}
	if _, err := sdk.QueryRow("SELECT id FROM pickups WHERE child_id = ? AND lower(name) = lower(?)", child.String("id"), name); err == nil {
		return sdk.Row{}, fmt.Errorf("%s is already authorised to pick up %s", name, child.String("name"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec("INSERT INTO pickups (child_id, name, phone) VALUES (?, ?, ?)", child.String("id"), name, phone)
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow("SELECT id AS pickup_id, child_id, name, phone FROM pickups WHERE id = ?", res.LastInsertID)
}

// RemovePickupArgs are the arguments of remove_pickup.
type RemovePickupArgs struct {
	// pickup id from list_pickups
	PickupID int64 `json:"pickup_id"`
}

// RemovePickup removes a pickup person, keeping at least one per child.
func RemovePickup(args RemovePickupArgs) (map[string]any, error) {
	p, err := sdk.QueryRow("SELECT id, child_id, name FROM pickups WHERE id = ?", args.PickupID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no pickup with id %d", args.PickupID)
	}
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM pickups WHERE child_id = ?", p.String("child_id"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") <= 1 {
		return nil, fmt.Errorf("%s is the only person authorised to pick up this child and cannot be removed", p.String("name"))
	}
	if _, err := sdk.Exec("DELETE FROM pickups WHERE id = ?", args.PickupID); err != nil {
		return nil, err
	}
	return map[string]any{"removed": p.String("name"), "pickup_id": args.PickupID, "child_id": p.String("child_id")}, nil
}

// PayInvoiceArgs are the arguments of pay_invoice.
type PayInvoiceArgs struct {
	// invoice id
	InvoiceID string `json:"invoice_id"`
}

// PayInvoice pays an unpaid invoice.
func PayInvoice(args PayInvoiceArgs) (sdk.Row, error) {
	inv, err := sdk.QueryRow("SELECT id, status FROM invoices WHERE id = ?", args.InvoiceID)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no invoice with id %q", args.InvoiceID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if inv.String("status") != "unpaid" {
		return sdk.Row{}, fmt.Errorf("invoice %s is already paid", args.InvoiceID)
	}
	if _, err := sdk.Exec("UPDATE invoices SET status = 'paid', paid_at = ? WHERE id = ?", sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), args.InvoiceID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow("SELECT id, amount, status, paid_at FROM invoices WHERE id = ?", args.InvoiceID)
}
