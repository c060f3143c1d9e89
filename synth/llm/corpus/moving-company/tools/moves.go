package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type BookMoveArgs struct {
	// Customer id from verify_customer
	CustomerID string `json:"customer_id"`
	// Date, YYYY-MM-DD
	MoveDate string `json:"move_date"`
	// studio, 1-bed, 2-bed, 3-bed or 4-bed
	HomeSize string `json:"home_size"`
	// Distance in km
	DistanceKm float64 `json:"distance_km"`
	// Include the packing service
	Packing *bool `json:"packing,omitempty"`
}

// BookMove books a new move on a date with a free crew.
func BookMove(args BookMoveArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("customer %s not found", args.CustomerID)
	} else if err != nil {
		return nil, err
	}
	days, err := daysFromToday(args.MoveDate)
	if err != nil {
		return nil, err
	}
	if days <= 0 {
		return nil, fmt.Errorf("the move date must be after today (%s)", today())
	}
	if args.DistanceKm <= 0 {
		return nil, errors.New("distance_km must be positive")
	}
	rate, err := sdk.QueryRow(`SELECT base_price, per_km, packing_price FROM home_rates WHERE home_size = ?`, args.HomeSize)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("unknown home size %q: use studio, 1-bed, 2-bed, 3-bed or 4-bed", args.HomeSize)
	}
	if err != nil {
		return nil, err
	}
	crew, err := firstFreeCrew(args.MoveDate, "")
	if err != nil {
		return nil, err
	}
	packing := args.Packing != nil && *args.Packing
	price := rate.Float("base_price") + rate.Float("per_km")*args.DistanceKm
	pack := 0
	if packing {
		price += rate.Float("packing_price")
		pack = 1
	}
	price = round2(price)
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 4) AS INTEGER)), 1000) + 1 AS n FROM jobs WHERE id LIKE 'MV-%'`)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("MV-%d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO jobs (id, customer_id, crew_id, move_date, home_size, distance_km, packing, price, fees, deposit, paid, refunded, status, completed_on)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, 0, 'booked', NULL)`,
		id, args.CustomerID, crew, args.MoveDate, args.HomeSize, args.DistanceKm, pack, price, round2(price*0.2)); err != nil {
		return nil, err
	}
	return jobView(id)
}

type RescheduleMoveArgs struct {
	// Job reference
	JobID string `json:"job_id"`
	// Date, YYYY-MM-DD
	NewDate string `json:"new_date"`
}

// RescheduleMove moves a booked job to another date with a free crew; 75.00 within 5 days of the move.
func RescheduleMove(args RescheduleMoveArgs) (map[string]any, error) {
	id := strings.TrimSpace(args.JobID)
	j, err := loadJob(id)
	if err != nil {
		return nil, err
	}
	if j.String("status") != "booked" {
		return nil, fmt.Errorf("job %s is %s: only booked moves can be rescheduled", id, j.String("status"))
	}
	current, err := daysFromToday(j.String("move_date"))
	if err != nil {
		return nil, err
	}
	if current <= 0 {
		return nil, fmt.Errorf("job %s moves on %s: it can no longer be rescheduled", id, j.String("move_date"))
	}
	days, err := daysFromToday(args.NewDate)
	if err != nil {
		return nil, err
	}
	if days <= 0 {
		return nil, fmt.Errorf("the new date must be after today (%s)", today())
	}
	if args.NewDate == j.String("move_date") {
		return nil, fmt.Errorf("job %s is already on %s", id, args.NewDate)
	}
	crew, err := firstFreeCrew(args.NewDate, id)
	if err != nil {
		return nil, err
	}
	fee := 0.0
	if current < 5 {
		fee = rescheduleFee
	}
	if _, err := sdk.Exec(`UPDATE jobs SET move_date = ?, crew_id = ?, fees = ROUND(fees + ?, 2) WHERE id = ?`, args.NewDate, crew, fee, id); err != nil {
		return nil, err
	}
	view, err := jobView(id)
	if err != nil {
		return nil, err
	}
	view["fee_charged"] = fee
	return view, nil
}

type SetPackingArgs struct {
	// Job reference
	JobID string `json:"job_id"`
	// true to add, false to remove
	Packing bool `json:"packing"`
}

// SetPacking adds or removes the packing service on a booked move.
func SetPacking(args SetPackingArgs) (map[string]any, error) {
	id := strings.TrimSpace(args.JobID)
	if _, err := bookedBeforeMove(id); err != nil {
		return nil, err
	}
	pack := 0
	if args.Packing {
		pack = 1
	}
	if _, err := sdk.Exec(`UPDATE jobs SET packing = ? WHERE id = ?`, pack, id); err != nil {
		return nil, err
	}
	if err := reprice(id); err != nil {
		return nil, err
	}
	return jobView(id)
}

type SetBoxesArgs struct {
	// Job reference
	JobID string `json:"job_id"`
	// small, medium or large
	BoxSize string `json:"box_size"`
	// New number of boxes of that size
	Quantity int `json:"quantity"`
}

// SetBoxes sets the number of boxes of one size on a booked move.
func SetBoxes(args SetBoxesArgs) (map[string]any, error) {
	id := strings.TrimSpace(args.JobID)
	if _, err := bookedBeforeMove(id); err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT box_size FROM box_prices WHERE box_size = ?`, args.BoxSize); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("unknown box size %q: use small, medium or large", args.BoxSize)
	} else if err != nil {
		return nil, err
	}
	if args.Quantity < 0 {
		return nil, errors.New("quantity cannot be negative")
	}
	var err error
	if args.Quantity == 0 {
		_, err = sdk.Exec(`DELETE FROM job_boxes WHERE job_id = ? AND box_size = ?`, id, args.BoxSize)
	} else {
		_, err = sdk.Exec(`INSERT INTO job_boxes (job_id, box_size, quantity) VALUES (?, ?, ?)
			ON CONFLICT (job_id, box_size) DO UPDATE SET quantity = excluded.quantity`, id, args.BoxSize, args.Quantity)
	}
	if err != nil {
		return nil, err
	}
	if err := reprice(id); err != nil {
		return nil, err
	}
	return jobView(id)
}

type CancelMoveArgs struct {
	// Job reference
	JobID string `json:"job_id"`
}

// CancelMove cancels a booked move; within 5 days of the move the deposit is kept.
func CancelMove(args CancelMoveArgs) (map[string]any, error) {
	id := strings.TrimSpace(args.JobID)
	j, err := loadJob(id)
	if err != nil {
		return nil, err
	}
	if j.String("status") != "booked" {
		return nil, fmt.Errorf("job %s is %s: only booked moves can be cancelled", id, j.String("status"))
	}
	days, err := daysFromToday(j.String("move_date"))
	if err != nil {
		return nil, err
	}
	refund := j.Float("paid")
	depositKept := false
	if days < 5 {
		refund = j.Float("paid") - j.Float("deposit")
		if refund < 0 {
			refund = 0
		}
		depositKept = true
	}
	refund = round2(refund)
	if _, err := sdk.Exec(`UPDATE jobs SET status = 'cancelled', refunded = ? WHERE id = ?`, refund, id); err != nil {
		return nil, err
	}
	return map[string]any{"job_id": id, "status": "cancelled", "refund": refund, "deposit_kept": depositKept}, nil
}

type FileDamageClaimArgs struct {
	// Job reference
	JobID string `json:"job_id"`
	// Inventory item id from get_job
	ItemID string `json:"item_id"`
	// Amount claimed
	Amount float64 `json:"amount"`
	// What was damaged
	Description string `json:"description"`
}

// FileDamageClaim files a claim for an inventory item of a move completed in the last 14 days.
func FileDamageClaim(args FileDamageClaimArgs) (map[string]any, error) {
	id := strings.TrimSpace(args.JobID)
	j, err := loadJob(id)
	if err != nil {
		return nil, err
	}
	if j.String("status") != "completed" || j.IsNull("completed_on") {
		return nil, fmt.Errorf("job %s is %s: claims can only be filed for completed moves", id, j.String("status"))
	}
	days, err := daysFromToday(j.String("completed_on"))
	if err != nil {
		return nil, err
	}
	if -days > 14 {
		return nil, fmt.Errorf("job %s was completed on %s, more than 14 days ago: the claim window has closed", id, j.String("completed_on"))
	}
	item, err := sdk.QueryRow(`SELECT id, name FROM inventory_items WHERE id = ? AND job_id = ?`, args.ItemID, id)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("item %s is not on the inventory of job %s", args.ItemID, id)
	}
	if err != nil {
		return nil, err
	}
	if args.Amount <= 0 {
		return nil, errors.New("the amount claimed must be positive")
	}
	if strings.TrimSpace(args.Description) == "" {
		return nil, errors.New("describe the damage")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM damage_claims WHERE job_id = ? AND item_id = ? AND status = 'open'`, id, args.ItemID); err == nil {
		return nil, fmt.Errorf("item %s already has an open claim", args.ItemID)
	}
	res, err := sdk.Exec(`INSERT INTO damage_claims (job_id, item_id, amount, description, filed_at, status) VALUES (?, ?, ?, ?, ?, 'open')`,
		id, args.ItemID, round2(args.Amount), args.Description, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"claim_id": res.LastInsertID, "job_id": id, "item_id": item.String("id"), "item": item.String("name"), "amount": round2(args.Amount), "status": "open"}, nil
}
