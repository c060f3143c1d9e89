package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// today is the clock's date.
func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// cents rounds to cents.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

// normPostcode compares postcodes without case or spaces.
func normPostcode(s string) string { return strings.ToUpper(strings.ReplaceAll(s, " ", "")) }

// account returns an account row.
func account(number string) (a sdk.Row, err error) {
	a, err = sdk.QueryRow("SELECT a.number, a.postcode, a.direct_debit_day, a.last_fee_waiver_on, c.name FROM accounts a JOIN customers c ON c.id = a.customer_id WHERE a.number = ?", strings.TrimSpace(number))
	if errors.Is(err, sdk.ErrNoRows) {
		return a, fmt.Errorf("no account %q", number)
	}
	return a, err
}

// owed is the unpaid part of overdue bills plus charged fees.
func owed(number string) (float64, error) {
	row, err := sdk.QueryRow("SELECT COALESCE((SELECT SUM(amount - paid) FROM bills WHERE account_number = ? AND status = 'overdue'), 0) + COALESCE((SELECT SUM(amount) FROM fees WHERE account_number = ? AND status = 'charged'), 0) AS owed", number, number)
	if err != nil {
		return 0, err
	}
	return cents(row.Float("owed")), nil
}

// newID numbers a new row after a table's count.
func newID(prefix, table string) (string, error) {
	row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM " + table)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d", prefix, 101+row.Int("n")), nil
}

// VerifyAccountArgs are verify_account's arguments.
type VerifyAccountArgs struct {
	// account number such as 40017
	AccountNumber string `json:"account_number"`
	// postcode on the account
	Postcode string `json:"postcode"`
}

// VerifyAccount verifies an account by number and postcode.
func VerifyAccount(args VerifyAccountArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil || normPostcode(a.String("postcode")) != normPostcode(args.Postcode) {
		return nil, errors.New("the account number and postcode do not match")
	}
	return map[string]any{"account_number": a.String("number"), "name": a.String("name"), "verified": true}, nil
}

// AccountArgs name one account.
type AccountArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
}

// GetAccount returns the debit day, what is owed, open disputes and the active plan.
func GetAccount(args AccountArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	o, err := owed(a.String("number"))
	if err != nil {
		return nil, err
	}
	disputes, err := sdk.Query("SELECT d.id, d.bill_id, d.raised_on FROM disputes d JOIN bills b ON b.id = d.bill_id WHERE b.account_number = ? AND d.status = 'open'", a.String("number"))
	if err != nil {
		return nil, err
	}
	plans, err := sdk.Query("SELECT id, total, instalments, instalment_amount, created_on FROM payment_plans WHERE account_number = ? AND status = 'active'", a.String("number"))
	if err != nil {
		return nil, err
	}
	var waiver any
	if !a.IsNull("last_fee_waiver_on") {
		waiver = a.String("last_fee_waiver_on")
	}
	return map[string]any{"account_number": a.String("number"), "name": a.String("name"), "direct_debit_day": a.Int("direct_debit_day"), "last_fee_waiver_on": waiver, "owed_now": o, "open_disputes": disputes, "active_plans": plans}, nil
}

// ListBills lists an account's bills.
func ListBills(args AccountArgs) (out sdk.Rows, err error) {
	if _, err := account(args.AccountNumber); err != nil {
		return out, err
	}
	return sdk.Query("SELECT b.id, m.fuel, b.period, b.opening_reading, b.closing_reading, b.estimated, b.amount, b.paid, b.status, b.due_on FROM bills b JOIN meters m ON m.id = b.meter_id WHERE b.account_number = ? ORDER BY b.period, m.fuel", strings.TrimSpace(args.AccountNumber))
}

// ListReadings lists the readings of an account's meters.
func ListReadings(args AccountArgs) (out sdk.Rows, err error) {
	if _, err := account(args.AccountNumber); err != nil {
		return out, err
	}
	return sdk.Query("SELECT r.meter_id, m.fuel, r.read_on, r.value, r.kind FROM readings r JOIN meters m ON m.id = r.meter_id WHERE m.account_number = ? ORDER BY r.read_on, m.fuel", strings.TrimSpace(args.AccountNumber))
}

// ListFees lists an account's late-payment fees.
func ListFees(args AccountArgs) (out sdk.Rows, err error) {
	if _, err := account(args.AccountNumber); err != nil {
		return out, err
	}
	return sdk.Query("SELECT id, bill_id, amount, status, charged_on, waived_on FROM fees WHERE account_number = ? ORDER BY charged_on", strings.TrimSpace(args.AccountNumber))
}

// SetDirectDebitDayArgs are set_direct_debit_day's arguments.
type SetDirectDebitDayArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
	// 1 to 28
	Day int `json:"day"`
}

// SetDirectDebitDay sets the day of the month of the direct debit.
func SetDirectDebitDay(args SetDirectDebitDayArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	if args.Day < 1 || args.Day > 28 {
		return nil, errors.New("the direct debit day must be 1 to 28")
	}
	if _, err := sdk.Exec("UPDATE accounts SET direct_debit_day = ? WHERE number = ?", args.Day, a.String("number")); err != nil {
		return nil, err
	}
	return map[string]any{"account_number": a.String("number"), "direct_debit_day": args.Day}, nil
}

// sinceYear reports whether date (YYYY-MM-DD) is within the last 12 months.
func sinceYear(date string) bool {
	return date > sdk.Now().UTC().AddDate(-1, 0, 0).Format("2006-01-02")
}
