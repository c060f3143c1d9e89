package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetMyProfile returns the logged-in user's account.
func GetMyProfile() (sdk.Row, error) {
	return getAccount(meID)
}

// FindAccounts searches the service's account directory by display name,
// username, phone or email (case-insensitive substring; phone numbers match
// with or without spaces). Each result says whether it is in the address book
// (contact_id) and whether you have blocked it.
func FindAccounts(args FindAccountsArgs) (sdk.Rows, error) {
	q := strings.TrimSpace(args.Query)
	if q == "" {
		return sdk.Rows{}, fmt.Errorf("query must not be empty")
	}
	p := likePattern(q)
	digits := likePattern(strings.NewReplacer(" ", "", "-", "", "(", "", ")", "").Replace(q))
	return sdk.Query(`SELECT a.id AS account_id, a.username, a.display_name, a.phone, a.email, a.status_text,
		(SELECT MIN(c.id) FROM contacts c WHERE c.account_id = a.id) AS contact_id,
		EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = a.id) AS blocked
		FROM accounts a WHERE a.id <> ? AND (a.display_name LIKE ? ESCAPE '\' OR a.username LIKE ? ESCAPE '\'
		OR a.phone LIKE ? ESCAPE '\' OR a.email LIKE ? ESCAPE '\')
		ORDER BY a.display_name, a.id LIMIT 20`, meID, p, p, digits, p)
}

type FindAccountsArgs struct {
	// Name, username, phone number or email to look for.
	Query string `json:"query"`
}

// BlockAccount blocks an account: you can no longer message it directly, add
// it to group conversations or schedule messages to it. Conversations are kept.
func BlockAccount(args BlockAccountArgs) (map[string]any, error) {
	if args.AccountID == meID {
		return nil, fmt.Errorf("you cannot block yourself")
	}
	acc, err := getAccount(args.AccountID)
	if err != nil {
		return nil, err
	}
	blocked, err := isBlocked(int64(args.AccountID))
	if err != nil {
		return nil, err
	}
	if blocked {
		return nil, fmt.Errorf("%s is already blocked", acc.String("display_name"))
	}
	ts := now()
	if _, err := sdk.Exec(`INSERT INTO blocks (account_id, reason, blocked_at) VALUES (?, ?, ?)`,
		args.AccountID, strings.TrimSpace(args.Reason), ts); err != nil {
		return nil, err
	}
	return map[string]any{"account_id": args.AccountID, "display_name": acc.String("display_name"), "blocked": true, "blocked_at": ts}, nil
}

type BlockAccountArgs struct {
	// The account id to block (see find_accounts).
	AccountID int `json:"account_id"`
	// Why the account is blocked (kept for your records).
	Reason string `json:"reason,omitempty"`
}

// UnblockAccount removes a block.
func UnblockAccount(args UnblockAccountArgs) (map[string]any, error) {
	acc, err := getAccount(args.AccountID)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM blocks WHERE account_id = ?`, args.AccountID)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("%s is not blocked", acc.String("display_name"))
	}
	return map[string]any{"account_id": args.AccountID, "display_name": acc.String("display_name"), "blocked": false}, nil
}

type UnblockAccountArgs struct {
	// The blocked account id (see list_blocked_accounts).
	AccountID int `json:"account_id"`
}

// ListBlockedAccounts lists the accounts you have blocked.
func ListBlockedAccounts() (sdk.Rows, error) {
	return sdk.Query(`SELECT b.account_id, a.username, a.display_name, b.reason, b.blocked_at
		FROM blocks b JOIN accounts a ON a.id = b.account_id ORDER BY b.blocked_at, b.account_id`)
}
