package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type CreateHireArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Item id.
	ItemID string `json:"item_id"`
	// YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// YYYY-MM-DD (inclusive).
	EndDate string `json:"end_date"`
}

// CreateHire hires one free unit of an item for a date range.
func CreateHire(args CreateHireArgs) (map[string]any, error) {
	c, err := customerRow(args.CustomerID)
	if err != nil {
		return nil, err
	}
	item, err := itemRow(args.ItemID)
	if err != nil {
		return nil, err
	}
	start, end, err := rangeOf(args.StartDate, args.EndDate)
	if err != nil {
		return nil, err
	}
	if start.Before(today()) {
		return nil, fmt.Errorf("a hire cannot start before today (%s)", today().Format(dateFmt))
	}
	unit, err := freeUnit(item.String("id"), start, end, 0)
	if err != nil {
		return nil, err
	}
	if unit == "" {
		return nil, fmt.Errorf("no %s is free on every day from %s to %s", item.String("name"), args.StartDate, args.EndDate)
	}
	n := days(start, end)
	charge := withTrade(hireCharge(n, item.Float("day_rate"), item.Float("weekly_rate")), c.Int("trade_account") == 1)
	res, err := sdk.Exec(`INSERT INTO hires (customer_id, unit_id, start_date, end_date, status, hire_charge, deposit) VALUES (?, ?, ?, ?, 'booked', ?, ?)`,
		c.String("id"), unit, start.Format(dateFmt), end.Format(dateFmt), charge, item.Float("deposit"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": res.LastInsertID, "item": item.String("name"), "unit_id": unit, "start_date": start.Format(dateFmt),
		"end_date": end.Format(dateFmt), "days": n, "hire_charge": charge, "deposit": item.Float("deposit")}, nil
}

type AddAccessoryArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Hire id.
	HireID int64 `json:"hire_id"`
	// Accessory id.
	AccessoryID string `json:"accessory_id"`
	// How many.
	Quantity int `json:"quantity"`
}

// AddAccessory adds an accessory to a booked or on-hire hire.
func AddAccessory(args AddAccessoryArgs) (map[string]any, error) {
	h, err := ownHire(args.CustomerID, args.HireID)
	if err != nil {
		return nil, err
	}
	if s := h.String("status"); s != "booked" && s != "on_hire" {
		return nil, fmt.Errorf("hire %d is %s: accessories go on booked or on-hire hires only", args.HireID, s)
	}
	if args.Quantity < 1 {
		return nil, fmt.Errorf("quantity must be at least 1")
	}
	a, err := sdk.QueryRow("SELECT id, name, price FROM accessories WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(args.AccessoryID))
	if err != nil {
		return nil, fmt.Errorf("no accessory %q", args.AccessoryID)
	}
	if _, err := sdk.Exec("INSERT INTO hire_accessories (hire_id, accessory_id, quantity, unit_price) VALUES (?, ?, ?, ?)",
		args.HireID, a.String("id"), args.Quantity, a.Float("price")); err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": args.HireID, "accessory": a.String("name"), "quantity": args.Quantity,
		"amount": money(float64(args.Quantity) * a.Float("price"))}, nil
}

type ExtendHireArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Hire id.
	HireID int64 `json:"hire_id"`
	// YYYY-MM-DD (inclusive).
	NewEndDate string `json:"new_end_date"`
}

// ExtendHire moves a hire's end date later while its unit stays free.
func ExtendHire(args ExtendHireArgs) (map[string]any, error) {
	h, err := ownHire(args.CustomerID, args.HireID)
	if err != nil {
		return nil, err
	}
	if s := h.String("status"); s != "booked" && s != "on_hire" {
		return nil, fmt.Errorf("hire %d is %s and cannot be extended", args.HireID, s)
	}
	start, end, err := rangeOf(h.String("start_date"), h.String("end_date"))
	if err != nil {
		return nil, err
	}
	newEnd, err := parseDate(args.NewEndDate, "new_end_date")
	if err != nil {
		return nil, err
	}
	if !newEnd.After(end) {
		return nil, fmt.Errorf("new_end_date must be after the current end date %s", h.String("end_date"))
	}
	c, err := clashes(h.String("unit_id"), end.AddDate(0, 0, 1), newEnd, args.HireID)
	if err != nil {
		return nil, err
	}
	if len(c) > 0 {
		return nil, fmt.Errorf("unit %s is hired from %s to %s, so the hire cannot run to %s", h.String("unit_id"), c[0].StartDate, c[0].EndDate, args.NewEndDate)
	}
	n := days(start, newEnd)
	charge := withTrade(hireCharge(n, h.Float("day_rate"), h.Float("weekly_rate")), h.Int("trade_account") == 1)
	if _, err := sdk.Exec("UPDATE hires SET end_date = ?, hire_charge = ? WHERE id = ?", newEnd.Format(dateFmt), charge, args.HireID); err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": args.HireID, "start_date": h.String("start_date"), "end_date": newEnd.Format(dateFmt), "days": n, "hire_charge": charge}, nil
}

type ChangeHireItemArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Hire id.
	HireID int64 `json:"hire_id"`
	// The new item id.
	ItemID string `json:"item_id"`
}

// ChangeHireItem moves a booked hire to a free unit of another item.
func ChangeHireItem(args ChangeHireItemArgs) (map[string]any, error) {
	h, err := ownHire(args.CustomerID, args.HireID)
	if err != nil {
		return nil, err
	}
	if h.String("status") != "booked" {
		return nil, fmt.Errorf("hire %d is %s: only a booked hire can change item", args.HireID, h.String("status"))
	}
	item, err := itemRow(args.ItemID)
	if err != nil {
		return nil, err
	}
	if item.String("id") == h.String("item_id") {
		return nil, fmt.Errorf("hire %d is already for %s", args.HireID, item.String("name"))
	}
	start, end, err := rangeOf(h.String("start_date"), h.String("end_date"))
	if err != nil {
		return nil, err
	}
	unit, err := freeUnit(item.String("id"), start, end, args.HireID)
	if err != nil {
		return nil, err
	}
	if unit == "" {
		return nil, fmt.Errorf("no %s is free on every day from %s to %s", item.String("name"), h.String("start_date"), h.String("end_date"))
	}
	charge := withTrade(hireCharge(days(start, end), item.Float("day_rate"), item.Float("weekly_rate")), h.Int("trade_account") == 1)
	if _, err := sdk.Exec("UPDATE hires SET unit_id = ?, hire_charge = ?, deposit = ? WHERE id = ?", unit, charge, item.Float("deposit"), args.HireID); err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": args.HireID, "item": item.String("name"), "unit_id": unit, "hire_charge": charge, "deposit": item.Float("deposit")}, nil
}

type ReturnHireArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Hire id.
	HireID int64 `json:"hire_id"`
	// Workshop's damage price (0 if none).
	DamageCharge float64 `json:"damage_charge,omitempty"`
}

// ReturnHire records the return of an on-hire hire today.
func ReturnHire(args ReturnHireArgs) (map[string]any, error) {
	h, err := ownHire(args.CustomerID, args.HireID)
	if err != nil {
		return nil, err
	}
	if h.String("status") != "on_hire" {
		return nil, fmt.Errorf("hire %d is %s, not on hire", args.HireID, h.String("status"))
	}
	if args.DamageCharge < 0 {
		return nil, fmt.Errorf("damage_charge cannot be negative")
	}
	end, err := parseDate(h.String("end_date"), "end_date")
	if err != nil {
		return nil, err
	}
	late := 0
	if t := today(); t.After(end) {
		late = days(end, t) - 1
	}
	lateCharge := money(float64(late) * 1.5 * h.Float("day_rate"))
	damage := money(args.DamageCharge)
	refund := money(h.Float("deposit") - damage)
	if refund < 0 {
		refund = 0
	}
	if _, err := sdk.Exec(`UPDATE hires SET status = 'returned', returned_on = ?, late_days = ?, late_charge = ?, damage_charge = ?, deposit_refunded = ? WHERE id = ?`,
		today().Format(dateFmt), late, lateCharge, damage, refund, args.HireID); err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": args.HireID, "item": h.String("item_name"), "returned_on": today().Format(dateFmt), "late_days": late,
		"late_charge": lateCharge, "damage_charge": damage, "deposit": h.Float("deposit"), "deposit_refunded": refund}, nil
}

type CancelHireArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Hire id.
	HireID int64 `json:"hire_id"`
}

// CancelHire cancels a booked hire: free until the day before its start,
// one day's hire charge from its start date on.
func CancelHire(args CancelHireArgs) (map[string]any, error) {
	h, err := ownHire(args.CustomerID, args.HireID)
	if err != nil {
		return nil, err
	}
	if h.String("status") != "booked" {
		return nil, fmt.Errorf("hire %d is %s and cannot be cancelled", args.HireID, h.String("status"))
	}
	start, err := parseDate(h.String("start_date"), "start_date")
	if err != nil {
		return nil, err
	}
	charge := 0.0
	if !today().Before(start) {
		charge = withTrade(h.Float("day_rate"), h.Int("trade_account") == 1)
	}
	if _, err := sdk.Exec("UPDATE hires SET status = 'cancelled', cancel_charge = ? WHERE id = ?", charge, args.HireID); err != nil {
		return nil, err
	}
	return map[string]any{"hire_id": args.HireID, "item": h.String("item_name"), "status": "cancelled", "cancellation_charge": charge,
		"deposit_returned": h.Float("deposit")}, nil
}
