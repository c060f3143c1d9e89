package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// insuranceMonthly is the monthly price of insurance cover.
const insuranceMonthly = 9.00

// VerifyCustomerArgs identify a customer.
type VerifyCustomerArgs struct {
	// The account number, such as SS-501.
	AccountNo string `json:"account_no"`
	// The account's PIN.
	Pin string `json:"pin"`
}

// VerifyCustomer checks an account number against its PIN.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	c, err := sdk.QueryRow(`SELECT account_no, name, pin FROM customers WHERE account_no = ?`, strings.ToUpper(strings.TrimSpace(args.AccountNo)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no account %q", args.AccountNo)
	}
	if err != nil {
		return nil, err
	}
	if c.String("pin") != strings.TrimSpace(args.Pin) {
		return nil, fmt.Errorf("the PIN does not match account %s", c.String("account_no"))
	}
	return map[string]any{"account_no": c.String("account_no"), "name": c.String("name"), "verified": true}, nil
}

// AccountArgs name an account.
type AccountArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
}

// ListRentals lists an account's rentals.
func ListRentals(args AccountArgs) (sdk.Rows, error) {
	if err := accountExists(args.AccountNo); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS rental_id, r.unit_id, s.name AS site, u.size, r.start_date, r.end_date, r.status, r.monthly_rent, r.rent_from, r.insured,
		r.monthly_rent + CASE WHEN r.insured = 1 THEN ? ELSE 0 END AS monthly_total
		FROM rentals r JOIN units u ON u.id = r.unit_id JOIN sites s ON s.id = u.site_id WHERE r.account_no = ? ORDER BY r.id`, insuranceMonthly, args.AccountNo)
}

// ListInvoices lists an account's invoices and its outstanding balance.
func ListInvoices(args AccountArgs) (map[string]any, error) {
	if err := accountExists(args.AccountNo); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT i.id AS invoice_id, i.rental_id, i.amount, i.due_date, i.status FROM invoices i JOIN rentals r ON r.id = i.rental_id
		WHERE r.account_no = ? ORDER BY i.due_date, i.id`, args.AccountNo)
	if err != nil {
		return nil, err
	}
	balance := 0.0
	for _, r := range rows.All() {
		if r.String("status") == "unpaid" {
			balance += r.Float("amount")
		}
	}
	return map[string]any{"invoices": rows, "outstanding_balance": cents(balance)}, nil
}

// PayInvoiceArgs name an invoice.
type PayInvoiceArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
	// The invoice id, such as INV-302.
	InvoiceID string `json:"invoice_id"`
}

// PayInvoice pays one of the account's unpaid invoices.
func PayInvoice(args PayInvoiceArgs) (map[string]any, error) {
	if err := accountExists(args.AccountNo); err != nil {
		return nil, err
	}
	inv, err := sdk.QueryRow(`SELECT i.id, i.amount, i.status FROM invoices i JOIN rentals r ON r.id = i.rental_id WHERE i.id = ? AND r.account_no = ?`,
		strings.ToUpper(strings.TrimSpace(args.InvoiceID)), args.AccountNo)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("account %s has no invoice %q", args.AccountNo, args.InvoiceID)
	}
	if err != nil {
		return nil, err
	}
	if inv.String("status") == "paid" {
		return nil, fmt.Errorf("invoice %s is already paid", inv.String("id"))
	}
	at := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec(`UPDATE invoices SET status = 'paid', paid_at = ? WHERE id = ?`, at, inv.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"invoice_id": inv.String("id"), "amount": inv.Float("amount"), "status": "paid", "paid_at": at}, nil
}

func accountExists(no string) error {
	_, err := sdk.QueryRow(`SELECT account_no FROM customers WHERE account_no = ?`, no)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no account %q", no)
	}
	return err
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
