package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListTickets lists a customer's support tickets, newest first.
func ListTickets(args ListTicketsArgs) (sdk.Rows, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT ticket_id, order_id, category, priority, status, subject, description, resolution,
		created_at, updated_at FROM tickets WHERE customer_id = ? AND (? = '' OR status = ?)
		ORDER BY created_at DESC`, c.String("customer_id"), args.Status, args.Status)
}

type ListTicketsArgs struct {
	// The customer id, such as "C1013".
	CustomerID string `json:"customer_id"`
	// Only tickets with this status.
	Status string `json:"status,omitempty" enum:"open,closed"`
}

// OpenTicket opens a support ticket for a problem that needs follow-up by the
// operations team (damaged or wrong item, missing package, billing, account).
func OpenTicket(args OpenTicketArgs) (sdk.Row, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return sdk.Row{}, err
	}
	cust := c.String("customer_id")
	var orderID any
	if strings.TrimSpace(args.OrderID) != "" {
		o, err := loadOrder(args.OrderID)
		if err != nil {
			return sdk.Row{}, err
		}
		if o.String("customer_id") != cust {
			return sdk.Row{}, fmt.Errorf("order %s does not belong to customer %s", o.String("order_id"), cust)
		}
		orderID = o.String("order_id")
	}
	if err := oneOf("category", args.Category, "damaged_item", "missing_package", "wrong_item", "billing", "account", "other"); err != nil {
		return sdk.Row{}, err
	}
	if err := oneOf("priority", args.Priority, "low", "normal", "high"); err != nil {
		return sdk.Row{}, err
	}
	subject, desc := strings.TrimSpace(args.Subject), strings.TrimSpace(args.Description)
	if subject == "" || desc == "" {
		return sdk.Row{}, fmt.Errorf("subject and description are required")
	}
	tid, err := nextID("tickets", "ticket_id", "T", 7001)
	if err != nil {
		return sdk.Row{}, err
	}
	ts := now()
	if _, err := sdk.Exec(`INSERT INTO tickets (ticket_id, customer_id, order_id, category, priority, status, subject,
		description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)`,
		tid, cust, orderID, args.Category, args.Priority, subject, desc, ts, ts); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT * FROM tickets WHERE ticket_id = ?`, tid)
}

type OpenTicketArgs struct {
	// The customer id, such as "C1011".
	CustomerID string `json:"customer_id"`
	// The order the ticket is about, such as "#W1016"; omit if none.
	OrderID string `json:"order_id,omitempty"`
	// What the ticket is about.
	Category string `json:"category" enum:"damaged_item,missing_package,wrong_item,billing,account,other"`
	// How urgent it is: high for damaged or unsafe items and missing packages of more than $100.
	Priority string `json:"priority" enum:"low,normal,high"`
	// One-line summary.
	Subject string `json:"subject"`
	// What happened, with the details the team needs.
	Description string `json:"description"`
}

// CloseTicket closes an open support ticket with a resolution note.
func CloseTicket(args CloseTicketArgs) (sdk.Row, error) {
	tid := strings.ToUpper(strings.TrimSpace(args.TicketID))
	t, err := sdk.QueryRow(`SELECT status FROM tickets WHERE ticket_id = ?`, tid)
	if err == sdk.ErrNoRows {
		return t, fmt.Errorf("ticket %s not found", args.TicketID)
	} else if err != nil {
		return t, err
	}
	if t.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("ticket %s is already closed", tid)
	}
	res := strings.TrimSpace(args.Resolution)
	if res == "" {
		return sdk.Row{}, fmt.Errorf("resolution is required")
	}
	if _, err := sdk.Exec(`UPDATE tickets SET status = 'closed', resolution = ?, updated_at = ? WHERE ticket_id = ?`,
		res, now(), tid); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT * FROM tickets WHERE ticket_id = ?`, tid)
}

type CloseTicketArgs struct {
	// The ticket id, such as "T7003".
	TicketID string `json:"ticket_id"`
	// How the issue was resolved.
	Resolution string `json:"resolution"`
}

// TransferToHumanAgent hands the conversation to a human agent. Use it only
// when the request cannot be handled with the other tools and policy.
func TransferToHumanAgent(args TransferToHumanAgentArgs) (string, error) {
	if strings.TrimSpace(args.Summary) == "" {
		return "", fmt.Errorf("summary is required")
	}
	return "Transfer successful. A human agent will continue the conversation.", nil
}

type TransferToHumanAgentArgs struct {
	// A short summary of the customer's request and what was done so far.
	Summary string `json:"summary"`
}
