package tools

import (
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListVisitSlotsArgs are list_visit_slots' arguments.
type ListVisitSlotsArgs struct {
	// first day
	FromDate string `json:"from_date,omitempty"`
	// last day
	ToDate string `json:"to_date,omitempty"`
}

// ListVisitSlots lists the free technician slots, earliest first.
func ListVisitSlots(args ListVisitSlotsArgs) (sdk.Rows, error) {
	from := args.FromDate
	if from < today() {
		from = today()
	}
	q := "SELECT id, slot_date, period, technician FROM visit_slots WHERE claim_id IS NULL AND slot_date >= ?"
	params := []any{from}
	if args.ToDate != "" {
		q += " AND slot_date <= ?"
		params = append(params, args.ToDate)
	}
	return sdk.Query(q+" ORDER BY slot_date, CASE period WHEN 'morning' THEN 0 ELSE 1 END", params...)
}

// BookVisitArgs are book_visit's arguments.
type BookVisitArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the claim's id
	ClaimID string `json:"claim_id"`
	// the slot's id
	SlotID string `json:"slot_id"`
}

// BookVisit books or moves an open claim's technician visit.
func BookVisit(args BookVisitArgs) (map[string]any, error) {
	c, err := customerClaim(args.CustomerID, args.ClaimID)
	if err != nil {
		return nil, err
	}
	if c.String("status") != "open" {
		return nil, fmt.Errorf("claim %s is %s: only an open claim's visit can be booked or moved", args.ClaimID, c.String("status"))
	}
	if c.String("size") == "small" {
		return nil, fmt.Errorf("product %s is a small appliance: it is repaired by post with the mail-in label, not by a technician visit", c.String("serial"))
	}
	s, err := sdk.QueryRow("SELECT id, slot_date, period, technician, claim_id FROM visit_slots WHERE id = ?", args.SlotID)
	if err != nil {
		return nil, fmt.Errorf("no visit slot with id %q", args.SlotID)
	}
	if !s.IsNull("claim_id") {
		return nil, fmt.Errorf("slot %s is already taken", args.SlotID)
	}
	if s.String("slot_date") < today() {
		return nil, fmt.Errorf("slot %s is in the past", args.SlotID)
	}
	if _, err := sdk.Exec("UPDATE visit_slots SET claim_id = NULL WHERE claim_id = ?", args.ClaimID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE visit_slots SET claim_id = ? WHERE id = ?", args.ClaimID, args.SlotID); err != nil {
		return nil, err
	}
	return map[string]any{"claim_id": args.ClaimID, "slot_id": args.SlotID, "date": s.String("slot_date"), "period": s.String("period"), "technician": s.String("technician")}, nil
}

// CancelClaimArgs are cancel_claim's arguments.
type CancelClaimArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the claim's id
	ClaimID string `json:"claim_id"`
}

// CancelClaim cancels an open claim before dispatch.
func CancelClaim(args CancelClaimArgs) (map[string]any, error) {
	c, err := customerClaim(args.CustomerID, args.ClaimID)
	if err != nil {
		return nil, err
	}
	switch c.String("status") {
	case "open":
	case "dispatched":
		return nil, fmt.Errorf("claim %s cannot be cancelled: the technician has been dispatched", args.ClaimID)
	default:
		return nil, fmt.Errorf("claim %s is already %s", args.ClaimID, c.String("status"))
	}
	if _, err := sdk.Exec("UPDATE claims SET status = 'cancelled', closed_at = ? WHERE id = ?", stamp(), args.ClaimID); err != nil {
		return nil, err
	}
	freed, err := sdk.Exec("UPDATE visit_slots SET claim_id = NULL WHERE claim_id = ?", args.ClaimID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"claim_id": args.ClaimID, "status": "cancelled", "slots_freed": freed.RowsAffected}, nil
}
