package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindSlotsArgs name an exhibition and a date.
type FindSlotsArgs struct {
	// Exhibition title such as Ancient Egypt.
	ExhibitionTitle string `json:"exhibition_title"`
	// Date YYYY-MM-DD.
	VisitDate string `json:"visit_date"`
}

func exhibitionID(title string) (string, error) {
	e, err := sdk.QueryRow(`SELECT id FROM exhibitions WHERE lower(title) = ?`, strings.ToLower(strings.TrimSpace(title)))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no exhibition is called %q", title)
	}
	if err != nil {
		return "", err
	}
	return e.String("id"), nil
}

// FindSlots lists an exhibition's slots on a date with the places left.
func FindSlots(args FindSlotsArgs) (sdk.Rows, error) {
	ex, err := exhibitionID(args.ExhibitionTitle)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.start_time, s.capacity, s.booked, s.capacity - s.booked AS available, e.adult_price
		FROM slots s JOIN exhibitions e ON e.id = s.exhibition_id WHERE s.exhibition_id = ? AND s.visit_date = ? ORDER BY s.start_time`, ex, strings.TrimSpace(args.VisitDate))
}

// BookTicketsArgs are the arguments of book_tickets.
type BookTicketsArgs struct {
	// The visitor id verify_visitor returned.
	VisitorID string `json:"visitor_id"`
	// Exhibition title.
	ExhibitionTitle string `json:"exhibition_title"`
	// Date YYYY-MM-DD.
	VisitDate string `json:"visit_date"`
	// Slot start time HH:MM.
	StartTime string `json:"start_time"`
	// Number of tickets, 1 to 10.
	Quantity int `json:"quantity"`
	// adult, member or concession.
	TicketType string `json:"ticket_type"`
}

func activeMember(visitorID string) (bool, error) {
	_, err := sdk.QueryRow(`SELECT id FROM memberships WHERE visitor_id = ? AND status = 'active' AND expires_on >= ?`, visitorID, today())
	if err == sdk.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// BookTickets books tickets into a slot as a new paid order.
func BookTickets(args BookTicketsArgs) (map[string]any, error) {
	if err := visitorExists(args.VisitorID); err != nil {
		return nil, err
	}
	if args.Quantity < 1 || args.Quantity > 10 {
		return nil, fmt.Errorf("quantity must be 1 to 10, not %d", args.Quantity)
	}
	ex, err := exhibitionID(args.ExhibitionTitle)
	if err != nil {
		return nil, err
	}
	slot, err := sdk.QueryRow(`SELECT s.id, s.visit_date, s.start_time, s.capacity, s.booked, e.adult_price FROM slots s JOIN exhibitions e ON e.id = s.exhibition_id
		WHERE s.exhibition_id = ? AND s.visit_date = ? AND s.start_time = ?`, ex, strings.TrimSpace(args.VisitDate), strings.TrimSpace(args.StartTime))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("%s has no %s slot on %s", args.ExhibitionTitle, args.StartTime, args.VisitDate)
	}
	if err != nil {
		return nil, err
	}
	if start, err := visitStart(slot.String("visit_date"), slot.String("start_time")); err != nil || !start.After(sdk.Now()) {
		return nil, fmt.Errorf("the %s slot on %s has already started", args.StartTime, args.VisitDate)
	}
	left := slot.Int("capacity") - slot.Int("booked")
	if int64(args.Quantity) > left {
		return nil, fmt.Errorf("the slot has only %d places left, not %d", left, args.Quantity)
	}
	typ := strings.ToLower(strings.TrimSpace(args.TicketType))
	price := slot.Float("adult_price")
	switch typ {
	case "adult":
	case "member":
		ok, err := activeMember(args.VisitorID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("member tickets need an active membership")
		}
		price = money(price * 0.8)
	case "concession":
		price = money(price * 0.5)
	default:
		return nil, fmt.Errorf("ticket_type must be adult, member or concession, not %q", args.TicketType)
	}
	orderID, err := nextID("orders", "O-")
	if err != nil {
		return nil, err
	}
	total := money(price * float64(args.Quantity))
	if _, err := sdk.Exec(`INSERT INTO orders (id, visitor_id, created_at, total, status) VALUES (?, ?, ?, ?, 'paid')`,
		orderID, args.VisitorID, sdk.Now().UTC().Format(time.RFC3339), total); err != nil {
		return nil, err
	}
	var ids []string
	for i := 0; i < args.Quantity; i++ {
		id, err := nextID("tickets", "T-")
		if err != nil {
			return nil, err
		}
		if _, err := sdk.Exec(`INSERT INTO tickets (id, order_id, slot_id, ticket_type, price, status) VALUES (?, ?, ?, ?, ?, 'valid')`,
			id, orderID, slot.String("id"), typ, price); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked + ? WHERE id = ?`, args.Quantity, slot.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": orderID, "ticket_ids": ids, "ticket_type": typ, "price_each": price, "total": total}, nil
}

// ExchangeTicketArgs are the arguments of exchange_ticket.
type ExchangeTicketArgs struct {
	// The visitor id verify_visitor returned.
	VisitorID string `json:"visitor_id"`
	// Ticket id such as T-9001.
	TicketID string `json:"ticket_id"`
	// Start time HH:MM of the new slot.
	NewStartTime string `json:"new_start_time"`
}

// ExchangeTicket moves a ticket to another slot of the same exhibition that day.
func ExchangeTicket(args ExchangeTicketArgs) (map[string]any, error) {
	if err := visitorExists(args.VisitorID); err != nil {
		return nil, err
	}
	t, err := sdk.QueryRow(`SELECT t.id, t.status, s.id AS slot_id, s.exhibition_id, s.visit_date, s.start_time FROM tickets t JOIN orders o ON o.id = t.order_id
		JOIN slots s ON s.id = t.slot_id WHERE t.id = ? AND o.visitor_id = ?`, strings.ToUpper(strings.TrimSpace(args.TicketID)), args.VisitorID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("ticket %q is not one of this visitor's tickets", args.TicketID)
	}
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" {
		return nil, fmt.Errorf("ticket %s is %s", t.String("id"), t.String("status"))
	}
	ns, err := sdk.QueryRow(`SELECT id, capacity, booked FROM slots WHERE exhibition_id = ? AND visit_date = ? AND start_time = ?`,
		t.String("exhibition_id"), t.String("visit_date"), strings.TrimSpace(args.NewStartTime))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("there is no %s slot of this exhibition on %s", args.NewStartTime, t.String("visit_date"))
	}
	if err != nil {
		return nil, err
	}
	if ns.String("id") == t.String("slot_id") {
		return nil, fmt.Errorf("ticket %s is already in the %s slot", t.String("id"), t.String("start_time"))
	}
	if start, err := visitStart(t.String("visit_date"), strings.TrimSpace(args.NewStartTime)); err != nil || !start.After(sdk.Now()) {
		return nil, fmt.Errorf("the %s slot has already started", args.NewStartTime)
	}
	if ns.Int("booked") >= ns.Int("capacity") {
		return nil, fmt.Errorf("the %s slot is full", args.NewStartTime)
	}
	if _, err := sdk.Exec(`UPDATE tickets SET slot_id = ? WHERE id = ?`, ns.String("id"), t.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked - 1 WHERE id = ?`, t.String("slot_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked + 1 WHERE id = ?`, ns.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": t.String("id"), "visit_date": t.String("visit_date"), "start_time": strings.TrimSpace(args.NewStartTime)}, nil
}

// RefundOrderArgs name an order to refund.
type RefundOrderArgs struct {
	// The visitor id verify_visitor returned.
	VisitorID string `json:"visitor_id"`
	// Order number.
	OrderID string `json:"order_id"`
}

// RefundOrder refunds a whole order more than 48 hours before its visits.
func RefundOrder(args RefundOrderArgs) (map[string]any, error) {
	o, err := visitorOrder(args.VisitorID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "paid" {
		return nil, fmt.Errorf("order %s is already %s", o.String("id"), o.String("status"))
	}
	tickets, err := sdk.Query(`SELECT t.id, t.slot_id, s.visit_date, s.start_time FROM tickets t JOIN slots s ON s.id = t.slot_id WHERE t.order_id = ? AND t.status = 'valid'`, o.String("id"))
	if err != nil {
		return nil, err
	}
	limit := sdk.Now().Add(48 * time.Hour)
	for _, t := range tickets.All() {
		start, err := visitStart(t.String("visit_date"), t.String("start_time"))
		if err != nil || !start.After(limit) {
			return nil, fmt.Errorf("order %s has a visit on %s at %s, within 48 hours: it cannot be refunded", o.String("id"), t.String("visit_date"), t.String("start_time"))
		}
	}
	for _, t := range tickets.All() {
		if _, err := sdk.Exec(`UPDATE slots SET booked = booked - 1 WHERE id = ?`, t.String("slot_id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE tickets SET status = 'refunded' WHERE order_id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'refunded' WHERE id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "status": "refunded", "refund": o.Float("total")}, nil
}
