package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// BuyTicketsArgs are the arguments of buy_tickets.
type BuyTicketsArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The section's id from search_events.
	SectionID string `json:"section_id"`
	// How many tickets, at least 1.
	Quantity int `json:"quantity"`
}

// BuyTickets buys tickets in a section within the event's limit.
func BuyTickets(args BuyTicketsArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, args.CustomerID); err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no customer has the id %s", args.CustomerID)
	} else if err != nil {
		return nil, err
	}
	if args.Quantity < 1 {
		return nil, errors.New("buy at least one ticket")
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.event_id, s.price, s.seats_left, e.status, e.per_customer_limit, e.title
		FROM sections s JOIN events e ON e.id = s.event_id WHERE s.id = ?`, args.SectionID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no section has the id %s", args.SectionID)
	} else if err != nil {
		return nil, err
	}
	if s.String("status") != "scheduled" {
		return nil, fmt.Errorf("%s is %s: no tickets are sold", s.String("title"), s.String("status"))
	}
	if int64(args.Quantity) > s.Int("seats_left") {
		return nil, fmt.Errorf("only %d seats are left in that section", s.Int("seats_left"))
	}
	held, err := heldFor(args.CustomerID, s.String("event_id"))
	if err != nil {
		return nil, err
	}
	if held+int64(args.Quantity) > s.Int("per_customer_limit") {
		return nil, fmt.Errorf("the customer holds %d tickets for this event; %d more would pass the limit of %d", held, args.Quantity, s.Int("per_customer_limit"))
	}
	now := sdk.Now().Format(time.RFC3339)
	var ids []int64
	for i := 0; i < args.Quantity; i++ {
		res, err := sdk.Exec(`INSERT INTO tickets (section_id, holder_id, price_paid, status, bought_at, refunded_at) VALUES (?, ?, ?, 'valid', ?, NULL)`,
			args.SectionID, args.CustomerID, s.Float("price"), now)
		if err != nil {
			return nil, err
		}
		ids = append(ids, res.LastInsertID)
	}
	if _, err := sdk.Exec(`UPDATE sections SET seats_left = seats_left - ? WHERE id = ?`, args.Quantity, args.SectionID); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_ids": ids, "event": s.String("title"), "section_id": args.SectionID, "price_each": s.Float("price"),
		"total": s.Float("price") * float64(args.Quantity)}, nil
}

// TransferTicketArgs are the arguments of transfer_ticket.
type TransferTicketArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The ticket's id from list_tickets.
	TicketID int64 `json:"ticket_id"`
	// The recipient's email.
	RecipientEmail string `json:"recipient_email"`
}

// TransferTicket gives one of the customer's valid tickets to another customer.
func TransferTicket(args TransferTicketArgs) (sdk.Row, error) {
	t, err := sdk.QueryRow(`SELECT t.id, t.status, s.event_id, e.status AS event_status, e.per_customer_limit
		FROM tickets t JOIN sections s ON s.id = t.section_id JOIN events e ON e.id = s.event_id WHERE t.id = ? AND t.holder_id = ?`, args.TicketID, args.CustomerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the customer holds no ticket %d", args.TicketID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if t.String("status") != "valid" {
		return sdk.Row{}, fmt.Errorf("ticket %d is %s", args.TicketID, t.String("status"))
	}
	if t.String("event_status") == "cancelled" {
		return sdk.Row{}, errors.New("the event is cancelled: ask for a refund instead")
	}
	to, err := sdk.QueryRow(`SELECT id, name FROM customers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.RecipientEmail))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no customer has the email %s", args.RecipientEmail)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if to.String("id") == args.CustomerID {
		return sdk.Row{}, errors.New("the ticket is already the customer's")
	}
	held, err := heldFor(to.String("id"), t.String("event_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if held+1 > t.Int("per_customer_limit") {
		return sdk.Row{}, fmt.Errorf("%s already holds the limit of %d tickets for this event", to.String("name"), t.Int("per_customer_limit"))
	}
	if _, err := sdk.Exec(`UPDATE tickets SET holder_id = ? WHERE id = ?`, to.String("id"), args.TicketID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT t.id AS ticket_id, e.title, s.name AS section, c.name AS holder, t.status
		FROM tickets t JOIN sections s ON s.id = t.section_id JOIN events e ON e.id = s.event_id JOIN customers c ON c.id = t.holder_id WHERE t.id = ?`, args.TicketID)
}

// RefundTicketsArgs are the arguments of refund_tickets.
type RefundTicketsArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The event's id.
	EventID string `json:"event_id"`
}

// RefundTickets refunds the customer's valid tickets for a cancelled or
// rescheduled event and puts the seats back.
func RefundTickets(args RefundTicketsArgs) (map[string]any, error) {
	e, err := sdk.QueryRow(`SELECT id, title, status FROM events WHERE id = ?`, args.EventID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no event has the id %s", args.EventID)
	} else if err != nil {
		return nil, err
	}
	if e.String("status") == "scheduled" {
		return nil, fmt.Errorf("%s goes ahead as planned: tickets are not refundable", e.String("title"))
	}
	held, err := sdk.QueryRow(`SELECT count(*) AS n, coalesce(sum(t.price_paid), 0) AS amount FROM tickets t JOIN sections s ON s.id = t.section_id
		WHERE t.holder_id = ? AND s.event_id = ? AND t.status = 'valid'`, args.CustomerID, args.EventID)
	if err != nil {
		return nil, err
	}
	if held.Int("n") == 0 {
		return nil, fmt.Errorf("the customer holds no valid ticket for %s", e.String("title"))
	}
	// Seats first, while the tickets still say which are valid.
	if _, err := sdk.Exec(`UPDATE sections SET seats_left = seats_left + (SELECT count(*) FROM tickets t
			WHERE t.section_id = sections.id AND t.holder_id = ? AND t.status = 'valid') WHERE event_id = ?`, args.CustomerID, args.EventID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE tickets SET status = 'refunded', refunded_at = ? WHERE holder_id = ? AND status = 'valid'
			AND section_id IN (SELECT id FROM sections WHERE event_id = ?)`, sdk.Now().Format(time.RFC3339), args.CustomerID, args.EventID); err != nil {
		return nil, err
	}
	return map[string]any{"event": e.String("title"), "tickets_refunded": held.Int("n"), "amount": held.Float("amount")}, nil
}
