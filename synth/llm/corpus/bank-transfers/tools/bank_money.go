package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func cents(x float64) float64 { return math.Round(x*100) / 100 }

// checkLimit fails when amount would take the customer's transfers and
// payments of the day above their daily limit.
func checkLimit(customer string, amount float64) error {
	day := sdk.Now().Format("2006-01-02")
	row, err := sdk.QueryRow(`SELECT c.daily_limit,
			coalesce((SELECT sum(t.amount) FROM transactions t JOIN accounts a ON a.id = t.account_id
				WHERE a.customer_id = c.id AND t.kind IN ('transfer_out','payment') AND substr(t.created_at, 1, 10) = ?), 0) AS spent
		FROM customers c WHERE c.id = ?`, day, customer)
	if err != nil {
		return err
	}
	if row.Float("spent")+amount > row.Float("daily_limit")+1e-9 {
		return fmt.Errorf("that would take today's transfers and payments to %.2f, above the daily limit of %.2f", row.Float("spent")+amount, row.Float("daily_limit"))
	}
	return nil
}

func checkAmount(amount float64, from sdk.Row) error {
	if amount <= 0 || cents(amount) != amount {
		return errors.New("the amount must be positive, in dollars with at most two decimals")
	}
	if amount > from.Float("balance")+1e-9 {
		return fmt.Errorf("account %s holds %.2f, less than %.2f", from.String("id"), from.Float("balance"), amount)
	}
	return nil
}

func record(account, kind string, amount float64, description string) error {
	_, err := sdk.Exec(`INSERT INTO transactions (account_id, kind, amount, description, created_at) VALUES (?, ?, ?, ?, ?)`,
		account, kind, amount, description, sdk.Now().Format(time.RFC3339))
	return err
}

// TransferArgs are the arguments of transfer.
type TransferArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The account to take the money from.
	FromAccountID string `json:"from_account_id"`
	// The account to put it in.
	ToAccountID string `json:"to_account_id"`
	// Dollars, two decimals.
	Amount float64 `json:"amount"`
}

// Transfer moves money between two of the customer's own accounts.
func Transfer(args TransferArgs) (map[string]any, error) {
	if args.FromAccountID == args.ToAccountID {
		return nil, errors.New("the two accounts are the same")
	}
	from, err := ownAccount(args.CustomerID, args.FromAccountID)
	if err != nil {
		return nil, err
	}
	to, err := ownAccount(args.CustomerID, args.ToAccountID)
	if err != nil {
		return nil, err
	}
	if err := checkAmount(args.Amount, from); err != nil {
		return nil, err
	}
	if err := checkLimit(args.CustomerID, args.Amount); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE accounts SET balance = round(balance - ?, 2) WHERE id = ?`, args.Amount, from.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE accounts SET balance = round(balance + ?, 2) WHERE id = ?`, args.Amount, to.String("id")); err != nil {
		return nil, err
	}
	if err := record(from.String("id"), "transfer_out", args.Amount, "Transfer to "+to.String("type")); err != nil {
		return nil, err
	}
	if err := record(to.String("id"), "transfer_in", args.Amount, "Transfer from "+from.String("type")); err != nil {
		return nil, err
	}
	after, err := sdk.Query(`SELECT id AS account_id, type, balance FROM accounts WHERE id IN (?, ?) ORDER BY type`, from.String("id"), to.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"amount": args.Amount, "accounts": after}, nil
}

// PayPayeeArgs are the arguments of pay_payee.
type PayPayeeArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The account to pay from.
	AccountID string `json:"account_id"`
	// The payee's id from list_payees.
	PayeeID string `json:"payee_id"`
	// Dollars, two decimals.
	Amount float64 `json:"amount"`
}

// PayPayee pays one of the customer's saved payees.
func PayPayee(args PayPayeeArgs) (map[string]any, error) {
	from, err := ownAccount(args.CustomerID, args.AccountID)
	if err != nil {
		return nil, err
	}
	payee, err := sdk.QueryRow(`SELECT id, name FROM payees WHERE id = ? AND customer_id = ?`, args.PayeeID, args.CustomerID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("payee %s is not one of the customer's saved payees", args.PayeeID)
	} else if err != nil {
		return nil, err
	}
	if err := checkLimit(args.CustomerID, args.Amount); err != nil {
		return nil, err
	}
	if err := checkAmount(args.Amount, from); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE accounts SET balance = round(balance - ?, 2) WHERE id = ?`, args.Amount, from.String("id")); err != nil {
		return nil, err
	}
	if err := record(from.String("id"), "payment", args.Amount, payee.String("name")); err != nil {
		return nil, err
	}
	acct, err := ownAccount(args.CustomerID, args.AccountID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"payee": payee.String("name"), "amount": args.Amount, "account_id": acct.String("id"), "balance": acct.Float("balance")}, nil
}

// FreezeCardArgs are the arguments of freeze_card.
type FreezeCardArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The card's last four digits.
	Last4 string `json:"last4"`
}

// FreezeCard freezes one of the customer's cards by its last four digits.
func FreezeCard(args FreezeCardArgs) (sdk.Row, error) {
	card, err := sdk.QueryRow(`SELECT c.id, c.status FROM cards c JOIN accounts a ON a.id = c.account_id
		WHERE a.customer_id = ? AND c.last4 = ?`, args.CustomerID, strings.TrimSpace(args.Last4))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the customer has no card ending in %s", args.Last4)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if card.String("status") == "frozen" {
		return sdk.Row{}, fmt.Errorf("the card ending in %s is already frozen", args.Last4)
	}
	if _, err := sdk.Exec(`UPDATE cards SET status = 'frozen', frozen_at = ? WHERE id = ?`, sdk.Now().Format(time.RFC3339), card.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT account_id, last4, status, frozen_at FROM cards WHERE id = ?`, card.String("id"))
}
