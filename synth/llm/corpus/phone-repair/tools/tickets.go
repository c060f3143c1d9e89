package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	protectorPrice = 15.0
	expressPrice   = 30.0
)

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// The customer's email.
	Email string `json:"email"`
	// Ticket number such as TK-2001.
	TicketID string `json:"ticket_id"`
}

// VerifyCustomer verifies a customer by email and one of their tickets.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT c.id AS customer_id, c.name FROM customers c JOIN tickets t ON t.customer_id = c.id WHERE lower(c.email) = ? AND t.id = ?`,
		strings.ToLower(strings.TrimSpace(args.Email)), strings.ToUpper(strings.TrimSpace(args.TicketID)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the email and ticket number do not match")
	}
	return row, err
}

func customerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no customer has the id %q", id)
	}
	return err
}

// ticketColumns select a ticket with its drop-off time and total.
const ticketColumns = `SELECT t.id AS ticket_id, t.device, t.fault, t.quote, t.quote_status, t.status, d.starts_at AS dropoff_at, t.screen_protector, t.express,
	(CASE WHEN t.quote_status = 'declined' THEN 0 ELSE t.quote END) + t.screen_protector * 15 + t.express * 30 AS total
	FROM tickets t LEFT JOIN dropoff_slots d ON d.id = t.dropoff_slot_id`

// CustomerArgs name a customer.
type CustomerArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
}

// ListTickets lists the customer's tickets.
func ListTickets(args CustomerArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(ticketColumns+` WHERE t.customer_id = ? ORDER BY t.id`, args.CustomerID)
}

// TicketArgs name a ticket.
type TicketArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Ticket number.
	TicketID string `json:"ticket_id"`
}

// GetTicket returns one of the customer's tickets.
func GetTicket(args TicketArgs) (sdk.Row, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Row{}, err
	}
	t, err := sdk.QueryRow(ticketColumns+` WHERE t.id = ? AND t.customer_id = ?`, strings.ToUpper(strings.TrimSpace(args.TicketID)), args.CustomerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("ticket %q is not one of this customer's tickets", args.TicketID)
	}
	return t, err
}

// OpenTicketArgs are the arguments of open_ticket.
type OpenTicketArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Device model such as iPhone 13.
	Device string `json:"device"`
	// Fault such as cracked screen or battery replacement.
	Fault string `json:"fault"`
	// true for express service.
	Express bool `json:"express,omitempty"`
}

// OpenTicket opens a ticket quoted from the price list.
func OpenTicket(args OpenTicketArgs) (sdk.Row, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Row{}, err
	}
	p, err := sdk.QueryRow(`SELECT device, fault, price FROM repair_prices WHERE lower(device) = ? AND lower(fault) = ?`,
		strings.ToLower(strings.TrimSpace(args.Device)), strings.ToLower(strings.TrimSpace(args.Fault)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the price list has no %q repair for %q", args.Fault, args.Device)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	rows, err := sdk.Query(`SELECT id FROM tickets WHERE id LIKE 'TK-%'`)
	if err != nil {
		return sdk.Row{}, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "TK-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("TK-%d", max+1)
	express := 0
	if args.Express {
		express = 1
	}
	if _, err := sdk.Exec(`INSERT INTO tickets (id, customer_id, device, fault, quote, quote_status, status, dropoff_slot_id, screen_protector, express, created_at)
		VALUES (?, ?, ?, ?, ?, 'pending', 'open', NULL, 0, ?, ?)`, id, args.CustomerID, p.String("device"), p.String("fault"), p.Float("price"), express, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return sdk.Row{}, err
	}
	return GetTicket(TicketArgs{CustomerID: args.CustomerID, TicketID: id})
}

func customerTicket(customer, id string) (sdk.Row, error) {
	if err := customerExists(customer); err != nil {
		return sdk.Row{}, err
	}
	t, err := sdk.QueryRow(`SELECT id, quote_status, status, dropoff_slot_id, screen_protector, express FROM tickets WHERE id = ? AND customer_id = ?`, strings.ToUpper(strings.TrimSpace(id)), customer)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("ticket %q is not one of this customer's tickets", id)
	}
	return t, err
}

// DecideQuoteArgs are the arguments of decide_quote.
type DecideQuoteArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Ticket number.
	TicketID string `json:"ticket_id"`
	// approve or decline.
	Decision string `json:"decision"`
}

// DecideQuote approves or declines a pending quote.
func DecideQuote(args DecideQuoteArgs) (sdk.Row, error) {
	t, err := customerTicket(args.CustomerID, args.TicketID)
	if err != nil {
		return sdk.Row{}, err
	}
	if t.String("quote_status") != "pending" {
		return sdk.Row{}, fmt.Errorf("the quote on %s is already %s", t.String("id"), t.String("quote_status"))
	}
	var status string
	switch strings.ToLower(strings.TrimSpace(args.Decision)) {
	case "approve", "approved":
		status = "approved"
	case "decline", "declined":
		status = "declined"
	default:
		return sdk.Row{}, fmt.Errorf("decision must be approve or decline, not %q", args.Decision)
	}
	if _, err := sdk.Exec(`UPDATE tickets SET quote_status = ? WHERE id = ?`, status, t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return GetTicket(TicketArgs{CustomerID: args.CustomerID, TicketID: t.String("id")})
}

// AddExtraArgs are the arguments of add_extra.
type AddExtraArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Ticket number.
	TicketID string `json:"ticket_id"`
	// screen protector or express.
	Extra string `json:"extra"`
}

// AddExtra adds a screen protector or express service to an active ticket.
func AddExtra(args AddExtraArgs) (sdk.Row, error) {
	t, err := customerTicket(args.CustomerID, args.TicketID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s := t.String("status"); s == "collected" || s == "cancelled" {
		return sdk.Row{}, fmt.Errorf("ticket %s is %s", t.String("id"), s)
	}
	col := ""
	switch e := strings.ToLower(strings.TrimSpace(args.Extra)); {
	case strings.Contains(e, "protector"):
		col = "screen_protector"
	case strings.Contains(e, "express"):
		col = "express"
	default:
		return sdk.Row{}, fmt.Errorf("extra must be screen protector or express, not %q", args.Extra)
	}
	if t.Int(col) == 1 {
		return sdk.Row{}, fmt.Errorf("ticket %s already has that extra", t.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE tickets SET `+col+` = 1 WHERE id = ?`, t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return GetTicket(TicketArgs{CustomerID: args.CustomerID, TicketID: t.String("id")})
}

// ListDropoffSlots lists the drop-off slots with places left.
func ListDropoffSlots() (sdk.Rows, error) {
	return sdk.Query(`SELECT substr(starts_at, 1, 10) AS date, substr(starts_at, 12, 5) AS time, capacity - booked AS places_left FROM dropoff_slots ORDER BY starts_at`)
}

// SetDropoffArgs are the arguments of set_dropoff.
type SetDropoffArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Ticket number.
	TicketID string `json:"ticket_id"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Time HH:MM.
	Time string `json:"time"`
}

// SetDropoff sets or moves an open ticket's drop-off to a slot with room.
func SetDropoff(args SetDropoffArgs) (sdk.Row, error) {
	t, err := customerTicket(args.CustomerID, args.TicketID)
	if err != nil {
		return sdk.Row{}, err
	}
	if t.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("ticket %s is %s; only an open ticket's drop-off can change", t.String("id"), t.String("status"))
	}
	at := strings.TrimSpace(args.Date) + "T" + strings.TrimSpace(args.Time) + ":00Z"
	s, err := sdk.QueryRow(`SELECT id, capacity, booked FROM dropoff_slots WHERE starts_at = ?`, at)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("there is no drop-off slot on %s at %s", args.Date, args.Time)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if at <= sdk.Now().UTC().Format(time.RFC3339) {
		return sdk.Row{}, fmt.Errorf("that slot is in the past")
	}
	if s.String("id") == t.String("dropoff_slot_id") {
		return sdk.Row{}, fmt.Errorf("the ticket is already in that slot")
	}
	if s.Int("booked") >= s.Int("capacity") {
		return sdk.Row{}, fmt.Errorf("the drop-off slot on %s at %s is full", args.Date, args.Time)
	}
	if !t.IsNull("dropoff_slot_id") {
		if _, err := sdk.Exec(`UPDATE dropoff_slots SET booked = booked - 1 WHERE id = ?`, t.String("dropoff_slot_id")); err != nil {
			return sdk.Row{}, err
		}
	}
	if _, err := sdk.Exec(`UPDATE dropoff_slots SET booked = booked + 1 WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE tickets SET dropoff_slot_id = ? WHERE id = ?`, s.String("id"), t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return GetTicket(TicketArgs{CustomerID: args.CustomerID, TicketID: t.String("id")})
}

// CancelTicket cancels an open ticket and frees its drop-off place.
func CancelTicket(args TicketArgs) (map[string]any, error) {
	t, err := customerTicket(args.CustomerID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "open" {
		return nil, fmt.Errorf("ticket %s is %s and can no longer be cancelled", t.String("id"), t.String("status"))
	}
	if !t.IsNull("dropoff_slot_id") {
		if _, err := sdk.Exec(`UPDATE dropoff_slots SET booked = booked - 1 WHERE id = ?`, t.String("dropoff_slot_id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE tickets SET status = 'cancelled', dropoff_slot_id = NULL WHERE id = ?`, t.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": t.String("id"), "status": "cancelled"}, nil
}
