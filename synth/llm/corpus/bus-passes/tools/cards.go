package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// replacementFee is charged for a second replacement within 12 months.
const replacementFee = 5.00

// BlockCardArgs are block_card's arguments.
type BlockCardArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the card's id
	CardID string `json:"card_id"`
	// lost or stolen
	Reason string `json:"reason"`
}

// BlockCard blocks a lost or stolen card.
func BlockCard(args BlockCardArgs) (map[string]any, error) {
	card, err := riderCard(args.RiderID, args.CardID)
	if err != nil {
		return nil, err
	}
	if args.Reason != "lost" && args.Reason != "stolen" {
		return nil, fmt.Errorf("reason %q is not lost or stolen", args.Reason)
	}
	if card.String("status") != "active" {
		return nil, fmt.Errorf("card %s is already blocked", args.CardID)
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec("UPDATE cards SET status = 'blocked', blocked_reason = ?, blocked_at = ? WHERE id = ?", args.Reason, now, args.CardID); err != nil {
		return nil, err
	}
	return map[string]any{"card_id": args.CardID, "number": card.String("number"), "status": "blocked", "reason": args.Reason, "balance": card.Float("balance")}, nil
}

// ReplaceCardArgs are replace_card's arguments.
type ReplaceCardArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the blocked card's id
	CardID string `json:"card_id"`
}

// ReplaceCard issues a new card with a blocked card's balance and passes.
func ReplaceCard(args ReplaceCardArgs) (map[string]any, error) {
	card, err := riderCard(args.RiderID, args.CardID)
	if err != nil {
		return nil, err
	}
	if card.String("status") != "blocked" {
		return nil, fmt.Errorf("card %s is active: block it first", args.CardID)
	}
	done, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM replacements WHERE old_card_id = ?", args.CardID)
	if err != nil {
		return nil, err
	}
	if done.Int("n") > 0 {
		return nil, fmt.Errorf("card %s has already been replaced", args.CardID)
	}
	now := sdk.Now().UTC()
	recent, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM replacements WHERE rider_id = ? AND replaced_at >= ?", args.RiderID, now.AddDate(-1, 0, 0).Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	fee := 0.0
	if recent.Int("n") > 0 {
		fee = replacementFee
	}
	old := card.Float("balance")
	if fee > old {
		fee = old
	}
	moved := money(old - fee)
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM cards")
	if err != nil {
		return nil, err
	}
	newID := fmt.Sprintf("c-%d", 2001+n.Int("n"))
	number := fmt.Sprintf("63000000%08d", 50001+n.Int("n"))
	stamp := now.Format(time.RFC3339)
	if _, err := sdk.Exec("INSERT INTO cards (id, rider_id, number, balance, status, issued_on) VALUES (?, ?, ?, ?, 'active', ?)", newID, args.RiderID, number, moved, now.Format("2006-01-02")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE cards SET balance = 0 WHERE id = ?", args.CardID); err != nil {
		return nil, err
	}
	res, err := sdk.Exec("UPDATE passes SET card_id = ? WHERE card_id = ? AND status = 'active' AND end_date >= ?", newID, args.CardID, today())
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO replacements (id, rider_id, old_card_id, new_card_id, fee, replaced_at) VALUES (?, ?, ?, ?, ?, ?)", "rep-"+newID, args.RiderID, args.CardID, newID, fee, stamp); err != nil {
		return nil, err
	}
	if err := addTransaction(args.CardID, "transfer_out", -old, ""); err != nil {
		return nil, err
	}
	if err := addTransaction(newID, "transfer_in", old, ""); err != nil {
		return nil, err
	}
	if err := addTransaction(newID, "replacement_fee", -fee, ""); err != nil {
		return nil, err
	}
	return map[string]any{"new_card_id": newID, "number": number, "balance": moved, "fee": fee, "passes_moved": res.RowsAffected, "old_card_id": args.CardID}, nil
}
