package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ReportLostSim marks the line's active SIM lost and suspends the line.
func ReportLostSim(args LineArgs) (map[string]any, error) {
	l, err := lineRow(args.Msisdn)
	if err != nil {
		return nil, err
	}
	s, err := sdk.QueryRow(`SELECT iccid FROM sims WHERE msisdn = ? AND status = 'active'`, l.String("msisdn"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the line has no active SIM")
	} else if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec(`UPDATE sims SET status = 'lost', updated_at = ? WHERE iccid = ?`, now, s.String("iccid")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE lines SET status = 'suspended' WHERE msisdn = ?`, l.String("msisdn")); err != nil {
		return nil, err
	}
	return lineDetail(l.String("msisdn"))
}

// OrderReplacementSimArgs are the arguments of order_replacement_sim.
type OrderReplacementSimArgs struct {
	// The line's number.
	Msisdn string `json:"msisdn"`
	// lost or damaged.
	Reason string `json:"reason"`
}

// OrderReplacementSim orders a replacement SIM posted to the account's address.
func OrderReplacementSim(args OrderReplacementSimArgs) (sdk.Row, error) {
	l, err := lineRow(args.Msisdn)
	if err != nil {
		return sdk.Row{}, err
	}
	reason := strings.ToLower(strings.TrimSpace(args.Reason))
	now := sdk.Now().UTC()
	switch reason {
	case "lost":
		if _, err := sdk.QueryRow(`SELECT iccid FROM sims WHERE msisdn = ? AND status = 'lost'`, l.String("msisdn")); err == sdk.ErrNoRows {
			return sdk.Row{}, fmt.Errorf("the SIM was not reported lost: report it with report_lost_sim first")
		} else if err != nil {
			return sdk.Row{}, err
		}
	case "damaged":
		if l.String("status") != "active" {
			return sdk.Row{}, fmt.Errorf("the line is %s", l.String("status"))
		}
		if _, err := sdk.Exec(`UPDATE sims SET status = 'replaced', updated_at = ? WHERE msisdn = ? AND status = 'active'`, now.Format(time.RFC3339), l.String("msisdn")); err != nil {
			return sdk.Row{}, err
		}
	default:
		return sdk.Row{}, fmt.Errorf("the reason must be lost or damaged, not %q", args.Reason)
	}
	recent := now.Add(-7 * 24 * time.Hour).Format(time.RFC3339)
	if _, err := sdk.QueryRow(`SELECT id FROM sim_orders WHERE msisdn = ? AND ordered_at > ?`, l.String("msisdn"), recent); err == nil {
		return sdk.Row{}, fmt.Errorf("a replacement SIM was already ordered for this line in the last 7 days")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	c, err := sdk.QueryRow(`SELECT postal_address FROM customers WHERE id = ?`, l.String("customer_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO sim_orders (msisdn, reason, ship_to, ordered_at) VALUES (?, ?, ?, ?)`, l.String("msisdn"), reason, c.String("postal_address"), now.Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, msisdn, reason, ship_to, ordered_at FROM sim_orders WHERE id = ?`, res.LastInsertID)
}
