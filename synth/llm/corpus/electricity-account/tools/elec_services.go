package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// SetPaymentPlanArgs are the arguments of set_payment_plan.
type SetPaymentPlanArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The monthly amount, such as 75.00.
	MonthlyAmount float64 `json:"monthly_amount"`
	// The day of the month, 1 to 28.
	PaymentDay int `json:"payment_day"`
}

// SetPaymentPlan sets up or changes the account's monthly payment plan.
func SetPaymentPlan(args SetPaymentPlanArgs) (sdk.Row, error) {
	a, err := activeAccount(args.AccountNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.MonthlyAmount <= 0 {
		return sdk.Row{}, fmt.Errorf("the monthly amount must be positive")
	}
	if args.PaymentDay < 1 || args.PaymentDay > 28 {
		return sdk.Row{}, fmt.Errorf("the payment day must be from 1 to 28, not %d", args.PaymentDay)
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec(`INSERT INTO payment_plans (account_number, monthly_amount, payment_day, status, updated_at) VALUES (?, ?, ?, 'active', ?)
		ON CONFLICT (account_number) DO UPDATE SET monthly_amount = excluded.monthly_amount, payment_day = excluded.payment_day, status = 'active', updated_at = excluded.updated_at`,
		a.String("number"), round2(args.MonthlyAmount), args.PaymentDay, now); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT account_number, monthly_amount, payment_day, status FROM payment_plans WHERE account_number = ?`, a.String("number"))
}

// CancelPaymentPlan cancels the account's active payment plan.
func CancelPaymentPlan(args AccountArgs) (sdk.Row, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`UPDATE payment_plans SET status = 'cancelled', updated_at = ? WHERE account_number = ? AND status = 'active'`, sdk.Now().UTC().Format(time.RFC3339), a.String("number"))
	if err != nil {
		return sdk.Row{}, err
	}
	if res.RowsAffected == 0 {
		return sdk.Row{}, fmt.Errorf("account %s has no active payment plan", a.String("number"))
	}
	return sdk.QueryRow(`SELECT account_number, monthly_amount, payment_day, status FROM payment_plans WHERE account_number = ?`, a.String("number"))
}

// MoveAccountArgs are the arguments of move_account.
type MoveAccountArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The new street address and town.
	NewAddress string `json:"new_address"`
	// The new postcode.
	NewPostcode string `json:"new_postcode"`
	// The move date, YYYY-MM-DD.
	MoveDate string `json:"move_date"`
}

// MoveAccount books a move of the account to a new address.
func MoveAccount(args MoveAccountArgs) (sdk.Row, error) {
	a, err := activeAccount(args.AccountNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	addr, pc := strings.TrimSpace(args.NewAddress), strings.ToUpper(strings.TrimSpace(args.NewPostcode))
	if addr == "" || pc == "" {
		return sdk.Row{}, fmt.Errorf("a move needs the new address and postcode")
	}
	day, err := time.Parse("2006-01-02", strings.TrimSpace(args.MoveDate))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("move date %q: want YYYY-MM-DD", args.MoveDate)
	}
	today := sdk.Now().UTC().Truncate(24 * time.Hour)
	if !day.After(today) || day.Sub(today) > 60*24*time.Hour {
		return sdk.Row{}, fmt.Errorf("the move date must be from tomorrow to 60 days ahead")
	}
	res, err := sdk.Exec(`INSERT INTO moves (account_number, from_address, to_address, to_postcode, move_date, requested_at) VALUES (?, ?, ?, ?, ?, ?)`,
		a.String("number"), a.String("address"), addr, pc, day.Format("2006-01-02"), sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, account_number, from_address, to_address, to_postcode, move_date FROM moves WHERE id = ?`, res.LastInsertID)
}

// ReportOutageArgs are the arguments of report_outage.
type ReportOutageArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// What the customer reports.
	Description string `json:"description"`
}

// ReportOutage reports a power outage at the account's postcode.
func ReportOutage(args ReportOutageArgs) (sdk.Row, error) {
	a, err := activeAccount(args.AccountNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	desc := strings.TrimSpace(args.Description)
	if desc == "" {
		return sdk.Row{}, fmt.Errorf("an outage report needs a description")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM outages WHERE postcode = ? AND status = 'reported'`, a.String("postcode")); err == nil {
		return sdk.Row{}, fmt.Errorf("an outage at %s is already reported", a.String("postcode"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO outages (account_number, postcode, description, status, reported_at) VALUES (?, ?, ?, 'reported', ?)`,
		a.String("number"), a.String("postcode"), desc, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, account_number, postcode, description, status, reported_at FROM outages WHERE id = ?`, res.LastInsertID)
}
