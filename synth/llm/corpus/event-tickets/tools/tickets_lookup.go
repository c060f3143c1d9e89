package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// The customer's full name.
	Name string `json:"name"`
	// The customer's email.
	Email string `json:"email"`
}

// VerifyCustomer verifies a customer by full name and email.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name FROM customers WHERE lower(name) = lower(?) AND lower(email) = lower(?)`,
		strings.TrimSpace(args.Name), strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no customer matches that name and email")
	}
	return row, err
}

// SearchEventsArgs are the arguments of search_events.
type SearchEventsArgs struct {
	// Part of the event's title.
	Title string `json:"title"`
	// The event's date, YYYY-MM-DD.
	Date string `json:"date,omitempty"`
}

// SearchEvents lists matching events with their sections.
func SearchEvents(args SearchEventsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT e.id AS event_id, e.title, e.venue, e.starts_at, e.status, e.per_customer_limit,
			s.id AS section_id, s.name AS section, s.price, s.seats_left
		FROM events e JOIN sections s ON s.event_id = e.id
		WHERE lower(e.title) LIKE '%' || lower(?) || '%' AND (? = '' OR substr(e.starts_at, 1, 10) = ?)
		ORDER BY e.starts_at, s.name`, strings.TrimSpace(args.Title), args.Date, args.Date)
}

// ListTicketsArgs are the arguments of list_tickets.
type ListTicketsArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
}

// ListTickets lists the customer's tickets.
func ListTickets(args ListTicketsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, args.CustomerID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no customer has the id %s", args.CustomerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT t.id AS ticket_id, e.title, e.id AS event_id, e.starts_at, s.name AS section, t.price_paid, t.status
		FROM tickets t JOIN sections s ON s.id = t.section_id JOIN events e ON e.id = s.event_id
		WHERE t.holder_id = ? ORDER BY e.starts_at, t.id`, args.CustomerID)
}

// heldFor counts a customer's valid tickets for an event.
func heldFor(customer, event string) (int64, error) {
	row, err := sdk.QueryRow(`SELECT count(*) AS n FROM tickets t JOIN sections s ON s.id = t.section_id
		WHERE t.holder_id = ? AND s.event_id = ? AND t.status = 'valid'`, customer, event)
	if err != nil {
		return 0, err
	}
	return row.Int("n"), nil
}
