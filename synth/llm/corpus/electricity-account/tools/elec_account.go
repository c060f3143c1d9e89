package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// squash normalises a postcode for comparison ("ls6 2pq" → "LS62PQ").
func squash(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// VerifyAccountArgs are the arguments of verify_account.
type VerifyAccountArgs struct {
	// The account number, such as ACC-1001.
	AccountNumber string `json:"account_number"`
	// The postcode of the supply address.
	Postcode string `json:"postcode"`
}

// VerifyAccount verifies an account by number and postcode.
func VerifyAccount(args VerifyAccountArgs) (sdk.Row, error) {
	a, err := sdk.QueryRow(`SELECT number, holder, address, postcode, status FROM accounts WHERE upper(number) = upper(?)`, strings.TrimSpace(args.AccountNumber))
	if err == sdk.ErrNoRows || (err == nil && squash(a.String("postcode")) != squash(args.Postcode)) {
		return sdk.Row{}, fmt.Errorf("the account number and postcode do not match an account")
	}
	return a, err
}

func account(number string) (sdk.Row, error) {
	a, err := sdk.QueryRow(`SELECT number, holder, address, postcode, status FROM accounts WHERE upper(number) = upper(?)`, strings.TrimSpace(number))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no account has the number %s", number)
	}
	return a, err
}

func activeAccount(number string) (sdk.Row, error) {
	a, err := account(number)
	if err == nil && a.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("account %s is %s", a.String("number"), a.String("status"))
	}
	return a, err
}

// AccountArgs name an account.
type AccountArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
}

// GetAccount returns an account with its last reading, payment plan and moves.
func GetAccount(args AccountArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"number": a.String("number"), "holder": a.String("holder"), "address": a.String("address"),
		"postcode": a.String("postcode"), "status": a.String("status")}
	if r, err := sdk.QueryRow(`SELECT reading_kwh, read_at FROM meter_readings WHERE account_number = ? ORDER BY read_at DESC, id DESC LIMIT 1`, a.String("number")); err == nil {
		out["last_reading"] = r
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if p, err := sdk.QueryRow(`SELECT monthly_amount, payment_day, status FROM payment_plans WHERE account_number = ?`, a.String("number")); err == nil {
		out["payment_plan"] = p
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	moves, err := sdk.Query(`SELECT to_address, to_postcode, move_date FROM moves WHERE account_number = ? ORDER BY id`, a.String("number"))
	if err != nil {
		return nil, err
	}
	out["moves"] = moves
	return out, nil
}

// RecordReadingArgs are the arguments of record_reading.
type RecordReadingArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The meter reading in kWh.
	ReadingKwh int `json:"reading_kwh"`
}

// RecordReading records a customer meter reading, never lower than the last.
func RecordReading(args RecordReadingArgs) (sdk.Row, error) {
	a, err := activeAccount(args.AccountNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	if last, err := sdk.QueryRow(`SELECT reading_kwh FROM meter_readings WHERE account_number = ? ORDER BY read_at DESC, id DESC LIMIT 1`, a.String("number")); err == nil {
		if int64(args.ReadingKwh) < last.Int("reading_kwh") {
			return sdk.Row{}, fmt.Errorf("the reading %d kWh is lower than the last one, %d kWh", args.ReadingKwh, last.Int("reading_kwh"))
		}
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO meter_readings (account_number, reading_kwh, read_at, source) VALUES (?, ?, ?, 'customer')`, a.String("number"), args.ReadingKwh, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, account_number, reading_kwh, read_at, source FROM meter_readings WHERE id = ?`, res.LastInsertID)
}
