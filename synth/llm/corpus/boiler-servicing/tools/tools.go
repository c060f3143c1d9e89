package tools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyCustomerArgs struct {
	// Account number, e.g. 'AC-2001'.
	AccountNumber string `json:"account_number"`
	// The customer's postcode.
	Postcode string `json:"postcode"`
}

// VerifyCustomer verifies a customer by account number and postcode.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	c, err := customerRow(args.AccountNumber)
	if err != nil || normPostcode(c.String("postcode")) != normPostcode(args.Postcode) {
		return nil, errors.New("the account number and postcode do not match a customer")
	}
	out := map[string]any{"customer_id": c.String("id"), "name": c.String("name"), "area": c.String("area"), "cover_plan": c.Int("cover_plan") == 1}
	if !c.IsNull("plan_start") {
		out["plan_start"] = c.String("plan_start")
	}
	return out, nil
}

type ListEngineersArgs struct {
	// Postcode area, e.g. 'LS6' (optional).
	Area string `json:"area,omitempty"`
}

// ListEngineers lists engineers, gas-safe or not, and their areas.
func ListEngineers(args ListEngineersArgs) (sdk.Rows, error) {
	a := strings.ToUpper(strings.TrimSpace(args.Area))
	return sdk.Query(`SELECT e.id, e.name, e.gas_safe, (SELECT group_concat(area, ', ') FROM engineer_areas x WHERE x.engineer_id = e.id) AS areas
		FROM engineers e WHERE ? = '' OR EXISTS (SELECT 1 FROM engineer_areas x WHERE x.engineer_id = e.id AND x.area = ?) ORDER BY e.name`, a, a)
}

type FindFreeSlotsArgs struct {
	// Postcode area.
	Area string `json:"area"`
	// True for gas work (only gas-safe engineers).
	GasWork bool `json:"gas_work,omitempty"`
	// morning or afternoon (optional).
	Period string `json:"period,omitempty"`
	// Only this engineer (optional).
	EngineerName string `json:"engineer_name,omitempty"`
	// YYYY-MM-DD, inclusive (optional).
	FromDate string `json:"from_date,omitempty"`
	// YYYY-MM-DD, inclusive (optional).
	ToDate string `json:"to_date,omitempty"`
}

// FindFreeSlots lists free slots of engineers covering an area, earliest first.
func FindFreeSlots(args FindFreeSlotsArgs) (sdk.Rows, error) {
	area := strings.ToUpper(strings.TrimSpace(args.Area))
	if area == "" {
		return sdk.Rows{}, errors.New("area is required")
	}
	gas := 0
	if args.GasWork {
		gas = 1
	}
	to := strings.TrimSpace(args.ToDate)
	if to == "" {
		to = "9999-12-31"
	}
	return sdk.Query(`SELECT s.id AS slot_id, s.slot_date, s.period, s.starts_at, e.name AS engineer, e.gas_safe
		FROM slots s JOIN engineers e ON e.id = s.engineer_id
		WHERE EXISTS (SELECT 1 FROM engineer_areas x WHERE x.engineer_id = e.id AND x.area = ?)
		AND (? = 0 OR e.gas_safe = 1) AND (? = '' OR s.period = LOWER(?)) AND (? = '' OR LOWER(e.name) = LOWER(?))
		AND s.slot_date >= ? AND s.slot_date <= ? AND s.starts_at > ?
		AND NOT EXISTS (SELECT 1 FROM visits v WHERE v.slot_id = s.id AND v.status IN ('booked','completed'))
		ORDER BY s.starts_at, e.name`, area, gas, strings.TrimSpace(args.Period), strings.TrimSpace(args.Period),
		strings.TrimSpace(args.EngineerName), strings.TrimSpace(args.EngineerName), strings.TrimSpace(args.FromDate), to,
		sdk.Now().UTC().Format(time.RFC3339))
}

type ListVisitsArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
}

// ListVisits lists a customer's visits, latest first.
func ListVisits(args ListVisitsArgs) ([]map[string]any, error) {
	c, err := customerRow(args.CustomerID)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	if err := list(&out, `SELECT json_object('visit_id', v.id, 'date', s.slot_date, 'period', s.period, 'engineer', e.name, 'kind', v.kind,
		'gas_work', json(CASE WHEN v.gas_work = 1 THEN 'true' ELSE 'false' END), 'description', v.description, 'status', v.status,
		'callout_fee', v.callout_fee, 'parts', json((SELECT json_group_array(json_object('part', p.part_name, 'quantity', p.quantity, 'unit_price', p.unit_price))
			FROM visit_parts p WHERE p.visit_id = v.id)), 'parts_total', v.parts_cost, 'cancel_fee', v.cancel_fee, 'amount_due', v.amount_due,
		'paid', json(CASE WHEN v.paid = 1 THEN 'true' ELSE 'false' END)) AS j
		FROM visits v JOIN slots s ON s.id = v.slot_id JOIN engineers e ON e.id = s.engineer_id
		WHERE v.customer_id = ? ORDER BY s.starts_at DESC`, c.String("id")); err != nil {
		return nil, err
	}
	return out, nil
}

type BookVisitArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Slot id.
	SlotID string `json:"slot_id"`
	// service or repair.
	Kind string `json:"kind"`
	// Whether the repair is gas work (ignored for a service, which always is).
	GasWork bool `json:"gas_work"`
	// What needs doing.
	Description string `json:"description"`
}

// BookVisit books a service or repair into a free slot.
func BookVisit(args BookVisitArgs) (map[string]any, error) {
	c, err := customerRow(args.CustomerID)
	if err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if kind != "service" && kind != "repair" {
		return nil, fmt.Errorf("kind must be service or repair, not %q", args.Kind)
	}
	gas := args.GasWork || kind == "service"
	s, err := slotRow(args.SlotID)
	if err != nil {
		return nil, err
	}
	if err := checkSlot(c, s, gas, 0); err != nil {
		return nil, err
	}
	callout, price := calloutFee, calloutFee
	if kind == "service" {
		callout, price = 0, servicePrice
		if c.Int("cover_plan") == 1 {
			price = 0
		}
	}
	g := 0
	if gas {
		g = 1
	}
	res, err := sdk.Exec(`INSERT INTO visits (customer_id, slot_id, kind, gas_work, description, status, callout_fee, parts_cost, cancel_fee, amount_due, paid)
		VALUES (?, ?, ?, ?, ?, 'booked', ?, 0, 0, 0, 0)`, c.String("id"), s.String("id"), kind, g, strings.TrimSpace(args.Description), callout)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"visit_id": res.LastInsertID, "slot_id": s.String("id"), "date": s.String("slot_date"), "period": s.String("period"),
		"engineer": s.String("engineer"), "kind": kind, "gas_work": gas, "price_now": price}
	if kind == "repair" {
		out["note"] = "plus the parts used, known when the visit is completed"
	}
	return out, nil
}

type RescheduleVisitArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Visit id.
	VisitID int64 `json:"visit_id"`
	// The new slot id.
	SlotID string `json:"slot_id"`
}

// RescheduleVisit moves a booked visit to another free slot.
func RescheduleVisit(args RescheduleVisitArgs) (map[string]any, error) {
	v, err := ownVisit(args.CustomerID, args.VisitID)
	if err != nil {
		return nil, err
	}
	if v.String("status") != "booked" {
		return nil, fmt.Errorf("visit %d is %s", args.VisitID, v.String("status"))
	}
	c, err := customerRow(v.String("customer_id"))
	if err != nil {
		return nil, err
	}
	s, err := slotRow(args.SlotID)
	if err != nil {
		return nil, err
	}
	if err := checkSlot(c, s, v.Int("gas_work") == 1, args.VisitID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE visits SET slot_id = ? WHERE id = ?", s.String("id"), args.VisitID); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": args.VisitID, "slot_id": s.String("id"), "date": s.String("slot_date"), "period": s.String("period"), "engineer": s.String("engineer")}, nil
}

type CancelVisitArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Visit id.
	VisitID int64 `json:"visit_id"`
}

// CancelVisit cancels a booked visit: free 48 hours or more ahead, else the call-out fee.
func CancelVisit(args CancelVisitArgs) (map[string]any, error) {
	v, err := ownVisit(args.CustomerID, args.VisitID)
	if err != nil {
		return nil, err
	}
	if v.String("status") != "booked" {
		return nil, fmt.Errorf("visit %d is %s and cannot be cancelled", args.VisitID, v.String("status"))
	}
	start, err := time.Parse(time.RFC3339, v.String("starts_at"))
	if err != nil {
		return nil, err
	}
	fee := 0.0
	if start.Sub(sdk.Now()) < 48*time.Hour {
		fee = calloutFee
	}
	if _, err := sdk.Exec("UPDATE visits SET status = 'cancelled', callout_fee = 0, cancel_fee = ?, amount_due = ? WHERE id = ?", fee, fee, args.VisitID); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": args.VisitID, "date": v.String("slot_date"), "period": v.String("period"), "status": "cancelled", "cancellation_fee": fee}, nil
}

type CompleteVisitArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Visit id.
	VisitID int64 `json:"visit_id"`
	// Parts used (may be empty), each 'name|quantity|unit price'.
	Parts []string `json:"parts,omitempty"`
}

// CompleteVisit logs a booked visit as completed with its parts.
func CompleteVisit(args CompleteVisitArgs) (map[string]any, error) {
	v, err := ownVisit(args.CustomerID, args.VisitID)
	if err != nil {
		return nil, err
	}
	if v.String("status") != "booked" {
		return nil, fmt.Errorf("visit %d is %s", args.VisitID, v.String("status"))
	}
	c, err := customerRow(v.String("customer_id"))
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, p := range args.Parts {
		f := strings.Split(p, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("part %q: want 'name|quantity|unit price'", p)
		}
		q, err1 := strconv.Atoi(strings.TrimSpace(f[1]))
		price, err2 := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
		if err1 != nil || err2 != nil || q < 1 || price < 0 {
			return nil, fmt.Errorf("part %q: bad quantity or price", p)
		}
		if _, err := sdk.Exec("INSERT INTO visit_parts (visit_id, part_name, quantity, unit_price) VALUES (?, ?, ?, ?)", args.VisitID, strings.TrimSpace(f[0]), q, price); err != nil {
			return nil, err
		}
		total += float64(q) * price
	}
	total = money(total)
	due := money(v.Float("callout_fee") + total)
	if v.String("kind") == "service" {
		due = servicePrice
		if c.Int("cover_plan") == 1 {
			due = 0
		}
	}
	if _, err := sdk.Exec("UPDATE visits SET status = 'completed', parts_cost = ?, amount_due = ? WHERE id = ?", total, due, args.VisitID); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": args.VisitID, "status": "completed", "parts_total": total, "amount_due": due}, nil
}
