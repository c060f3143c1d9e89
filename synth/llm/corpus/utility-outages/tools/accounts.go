package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

// nextID returns the next id PREFIX-N of a table.
func nextID(table, prefix string) (string, error) {
	rows, err := sdk.Query(`SELECT id FROM `+table+` WHERE id LIKE ?`, prefix+"%")
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), prefix)); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("%s%d", prefix, max+1), nil
}

// VerifyAccountArgs are the arguments of verify_account.
type VerifyAccountArgs struct {
	// Account number such as UA-10021.
	AccountID string `json:"account_id"`
	// The postcode of the account's address.
	Postcode string `json:"postcode"`
}

// VerifyAccount verifies an account holder by account number and postcode.
func VerifyAccount(args VerifyAccountArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS account_id, holder_name, address, alert_channel, alert_contact FROM accounts WHERE id = ? AND postcode = ?`,
		strings.ToUpper(strings.TrimSpace(args.AccountID)), strings.TrimSpace(args.Postcode))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the account number and postcode do not match an account")
	}
	return row, err
}

func accountExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM accounts WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no account has the id %q", id)
	}
	return err
}

// AccountArgs name a verified account.
type AccountArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
}

// ListOutages lists the account's outages with their duration and credit.
func ListOutages(args AccountArgs) (sdk.Rows, error) {
	if err := accountExists(args.AccountID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT o.id AS outage_id, o.kind, o.started_at, o.restored_at, o.estimated_restoration, o.status,
		ROUND((julianday(COALESCE(o.restored_at, ?)) - julianday(o.started_at)) * 24, 1) AS hours,
		c.amount AS credit_amount FROM outages o LEFT JOIN credits c ON c.outage_id = o.id WHERE o.account_id = ? ORDER BY o.started_at`,
		sdk.Now().UTC().Format(stamp), args.AccountID)
}

// ReportOutageArgs are the arguments of report_outage.
type ReportOutageArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
	// power or water.
	Kind string `json:"kind"`
}

// ReportOutage reports an outage at the account's address.
func ReportOutage(args ReportOutageArgs) (map[string]any, error) {
	if err := accountExists(args.AccountID); err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if kind != "power" && kind != "water" {
		return nil, fmt.Errorf("kind must be power or water, not %q", args.Kind)
	}
	if o, err := sdk.QueryRow(`SELECT id FROM outages WHERE account_id = ? AND kind = ? AND status != 'restored'`, args.AccountID, kind); err == nil {
		return nil, fmt.Errorf("a %s outage is already open for this address (%s)", kind, o.String("id"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	id, err := nextID("outages", "OUT-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO outages (id, account_id, kind, started_at, restored_at, estimated_restoration, status) VALUES (?, ?, ?, ?, NULL, NULL, 'reported')`,
		id, args.AccountID, kind, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	return map[string]any{"outage_id": id, "kind": kind, "status": "reported"}, nil
}

// CreditArgs name an outage.
type CreditArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
	// Outage id such as OUT-501.
	OutageID string `json:"outage_id"`
}

// RequestCredit gives the bill credit for a restored outage longer than 24 hours.
func RequestCredit(args CreditArgs) (map[string]any, error) {
	if err := accountExists(args.AccountID); err != nil {
		return nil, err
	}
	o, err := sdk.QueryRow(`SELECT id, kind, status, restored_at, (julianday(restored_at) - julianday(started_at)) * 24 AS hours FROM outages WHERE id = ? AND account_id = ?`,
		strings.ToUpper(strings.TrimSpace(args.OutageID)), args.AccountID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("outage %q is not one of this account's outages", args.OutageID)
	}
	if err != nil {
		return nil, err
	}
	if o.String("status") != "restored" || o.IsNull("restored_at") {
		return nil, fmt.Errorf("outage %s is not restored yet", o.String("id"))
	}
	if o.Float("hours") <= 24 {
		return nil, fmt.Errorf("outage %s lasted %.1f hours; only outages over 24 hours earn a credit", o.String("id"), o.Float("hours"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM credits WHERE outage_id = ?`, o.String("id")); err == nil {
		return nil, fmt.Errorf("outage %s already has a credit", o.String("id"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	amount := 25.0
	if o.String("kind") == "water" {
		amount = 15.0
	}
	if _, err := sdk.Exec(`INSERT INTO credits (outage_id, account_id, amount, requested_at) VALUES (?, ?, ?, ?)`, o.String("id"), args.AccountID, amount, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	return map[string]any{"outage_id": o.String("id"), "credit": amount}, nil
}

// SetAlertsArgs are the arguments of set_alerts.
type SetAlertsArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
	// email, sms or none.
	Channel string `json:"channel"`
	// Email address or phone number.
	Contact string `json:"contact,omitempty"`
}

// SetAlerts sets how the account's outage alerts are sent.
func SetAlerts(args SetAlertsArgs) (map[string]any, error) {
	if err := accountExists(args.AccountID); err != nil {
		return nil, err
	}
	channel := strings.ToLower(strings.TrimSpace(args.Channel))
	contact := strings.TrimSpace(args.Contact)
	switch channel {
	case "email":
		if !strings.Contains(contact, "@") {
			return nil, fmt.Errorf("email alerts need an email address")
		}
	case "sms":
		digits := 0
		for _, r := range contact {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits < 7 {
			return nil, fmt.Errorf("SMS alerts need a phone number")
		}
	case "none":
		contact = ""
	default:
		return nil, fmt.Errorf("channel must be email, sms or none, not %q", args.Channel)
	}
	if _, err := sdk.Exec(`UPDATE accounts SET alert_channel = ?, alert_contact = ? WHERE id = ?`, channel, contact, args.AccountID); err != nil {
		return nil, err
	}
	return map[string]any{"alert_channel": channel, "alert_contact": contact}, nil
}
