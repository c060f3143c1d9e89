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
	Email string `json:"email,omitempty"`
	// The customer's zip code.
	Zip string `json:"zip,omitempty"`
}

// VerifyCustomer verifies a customer by full name and email or zip code.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	email, zip := strings.TrimSpace(args.Email), strings.TrimSpace(args.Zip)
	if email == "" && zip == "" {
		return sdk.Row{}, errors.New("give the customer's email or zip code with the name")
	}
	row, err := sdk.QueryRow(`SELECT id, name, daily_limit FROM customers
		WHERE lower(name) = lower(?) AND (? = '' OR lower(email) = lower(?)) AND (? = '' OR zip = ?)`,
		strings.TrimSpace(args.Name), email, email, zip, zip)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no customer matches those details")
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

// ownAccount loads one of the customer's accounts.
func ownAccount(customer, account string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, type, balance FROM accounts WHERE id = ? AND customer_id = ?`, account, customer)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("account %s is not one of the customer's accounts", account)
	}
	return row, err
}

// ListAccountsArgs are the arguments of list_accounts.
type ListAccountsArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
}

// ListAccounts lists the customer's accounts and their cards.
func ListAccounts(args ListAccountsArgs) (map[string]any, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return nil, err
	}
	accounts, err := sdk.Query(`SELECT id AS account_id, type, balance FROM accounts WHERE customer_id = ? ORDER BY type`, args.CustomerID)
	if err != nil {
		return nil, err
	}
	cards, err := sdk.Query(`SELECT c.account_id, c.last4, c.status FROM cards c JOIN accounts a ON a.id = c.account_id
		WHERE a.customer_id = ? ORDER BY c.last4`, args.CustomerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"accounts": accounts, "cards": cards}, nil
}

// ListTransactionsArgs are the arguments of list_transactions.
type ListTransactionsArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
	// The account's id from list_accounts.
	AccountID string `json:"account_id"`
	// deposit, card_purchase, transfer_in, transfer_out or payment.
	Kind string `json:"kind,omitempty"`
	// Only this month, YYYY-MM.
	Month string `json:"month,omitempty"`
}

// ListTransactions lists an account's transactions, newest first.
func ListTransactions(args ListTransactionsArgs) (sdk.Rows, error) {
	if _, err := ownAccount(args.CustomerID, args.AccountID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS transaction_id, kind, amount, description, created_at FROM transactions
		WHERE account_id = ? AND (? = '' OR kind = ?) AND (? = '' OR substr(created_at, 1, 7) = ?)
		ORDER BY created_at DESC`, args.AccountID, args.Kind, args.Kind, args.Month, args.Month)
}

// ListPayeesArgs are the arguments of list_payees.
type ListPayeesArgs struct {
	// The verified customer's id.
	CustomerID string `json:"customer_id"`
}

// ListPayees lists the customer's saved payees.
func ListPayees(args ListPayeesArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS payee_id, name, account_number FROM payees WHERE customer_id = ? ORDER BY name`, args.CustomerID)
}
