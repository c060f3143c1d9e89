package tools

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
)

// compact keeps letters and digits, upper-cased ("kx19 abc" → "KX19ABC").
func compact(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// The customer's phone number.
	Phone string `json:"phone"`
	// The vehicle's registration, such as KX19 ABC.
	Registration string `json:"registration"`
}

// VerifyCustomer verifies a customer by phone and one of their vehicles.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT c.id AS customer_id, c.name, v.registration, v.make_model FROM customers c JOIN vehicles v ON v.customer_id = c.id
		WHERE c.phone = ? AND v.registration = ?`, compact(args.Phone), compact(args.Registration))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the phone number and registration do not match a customer's vehicle")
	}
	return row, err
}

func customerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no customer has the id %s", id)
	}
	return err
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// The customer's id from verify_customer.
	CustomerID string `json:"customer_id"`
}

// ListVehicles lists the customer's vehicles.
func ListVehicles(args CustomerArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT registration, make_model FROM vehicles WHERE customer_id = ? ORDER BY registration`, args.CustomerID)
}

// ListBookings lists the customer's bookings with their quotes.
func ListBookings(args CustomerArgs) (map[string]any, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return nil, err
	}
	bookings, err := sdk.Query(`SELECT b.id, b.registration, s.name AS service, sl.starts_at, b.status FROM bookings b JOIN vehicles v ON v.registration = b.registration
		JOIN slots sl ON sl.id = b.slot_id JOIN services s ON s.code = sl.service_code WHERE v.customer_id = ? ORDER BY sl.starts_at`, args.CustomerID)
	if err != nil {
		return nil, err
	}
	quotes, err := sdk.Query(`SELECT q.id, q.booking_id, q.item, q.amount, q.status FROM quotes q JOIN bookings b ON b.id = q.booking_id
		JOIN vehicles v ON v.registration = b.registration WHERE v.customer_id = ? ORDER BY q.id`, args.CustomerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bookings": bookings, "quotes": quotes}, nil
}

// GetInvoices lists the customer's invoices, newest first.
func GetInvoices(args CustomerArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT i.id, b.registration, i.total, i.issued_on FROM invoices i JOIN bookings b ON b.id = i.booking_id JOIN vehicles v ON v.registration = b.registration
		WHERE v.customer_id = ? ORDER BY i.issued_on DESC`, args.CustomerID)
}

// DecideQuoteArgs are the arguments of decide_quote.
type DecideQuoteArgs struct {
	// The customer's id.
	CustomerID string `json:"customer_id"`
	// The quote's id from list_bookings.
	QuoteID int `json:"quote_id"`
	// approve or decline.
	Decision string `json:"decision"`
}

// DecideQuote approves or declines a pending quote.
func DecideQuote(args DecideQuoteArgs) (sdk.Row, error) {
	q, err := sdk.QueryRow(`SELECT q.id, q.status, v.customer_id FROM quotes q JOIN bookings b ON b.id = q.booking_id JOIN vehicles v ON v.registration = b.registration WHERE q.id = ?`, args.QuoteID)
	if err == sdk.ErrNoRows || (err == nil && q.String("customer_id") != args.CustomerID) {
		return sdk.Row{}, fmt.Errorf("the customer has no quote %d", args.QuoteID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if q.String("status") != "pending" {
		return sdk.Row{}, fmt.Errorf("quote %d is already %s", args.QuoteID, q.String("status"))
	}
	status := map[string]string{"approve": "approved", "decline": "declined"}[strings.ToLower(strings.TrimSpace(args.Decision))]
	if status == "" {
		return sdk.Row{}, fmt.Errorf("the decision must be approve or decline, not %q", args.Decision)
	}
	if _, err := sdk.Exec(`UPDATE quotes SET status = ? WHERE id = ?`, status, args.QuoteID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, booking_id, item, amount, status FROM quotes WHERE id = ?`, args.QuoteID)
}
