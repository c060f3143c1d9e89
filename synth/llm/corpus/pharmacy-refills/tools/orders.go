package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// RefillArgs are the arguments of request_refill.
type RefillArgs struct {
	// The patient id find_patient returned.
	PatientID string `json:"patient_id"`
	// Prescription id such as RX-101.
	PrescriptionID string `json:"prescription_id"`
	// Pickup branch name such as Riverside; omit for the home branch.
	BranchName string `json:"branch_name,omitempty"`
}

// RequestRefill creates a processing order for an eligible prescription.
func RequestRefill(args RefillArgs) (map[string]any, error) {
	p, err := patient(args.PatientID)
	if err != nil {
		return nil, err
	}
	rx, err := sdk.QueryRow(`SELECT id, drug_name, refills_remaining, days_supply, next_refill_date, price, insurance_covers FROM prescriptions WHERE id = ? AND patient_id = ?`,
		strings.ToUpper(strings.TrimSpace(args.PrescriptionID)), args.PatientID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("prescription %q is not one of this patient's prescriptions", args.PrescriptionID)
	}
	if err != nil {
		return nil, err
	}
	if rx.Int("refills_remaining") < 1 {
		return nil, fmt.Errorf("%s has no refills remaining", rx.String("drug_name"))
	}
	if rx.String("next_refill_date") > today() {
		return nil, fmt.Errorf("%s cannot be refilled before %s", rx.String("drug_name"), rx.String("next_refill_date"))
	}
	branch := p.String("home_branch_id")
	if strings.TrimSpace(args.BranchName) != "" {
		if branch, err = branchID(args.BranchName); err != nil {
			return nil, err
		}
	}
	rows, err := sdk.Query(`SELECT id FROM orders WHERE id LIKE 'ORD-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "ORD-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("ORD-%d", max+1)
	due := math.Round((rx.Float("price")-rx.Float("insurance_covers"))*100) / 100
	now := sdk.Now().UTC()
	if _, err := sdk.Exec(`INSERT INTO orders (id, prescription_id, patient_id, branch_id, status, price, insurance_paid, amount_due, created_at) VALUES (?, ?, ?, ?, 'processing', ?, ?, ?, ?)`,
		id, rx.String("id"), args.PatientID, branch, rx.Float("price"), rx.Float("insurance_covers"), due, now.Format(time.RFC3339)); err != nil {
		return nil, err
	}
	next := now.AddDate(0, 0, int(rx.Int("days_supply"))).Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE prescriptions SET refills_remaining = refills_remaining - 1, next_refill_date = ? WHERE id = ?`, next, rx.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": id, "drug_name": rx.String("drug_name"), "branch_id": branch, "status": "processing", "amount_due": due,
		"refills_remaining": rx.Int("refills_remaining") - 1, "next_refill_date": next}, nil
}

func patientOrder(patientID, orderID string) (sdk.Row, error) {
	if _, err := patient(patientID); err != nil {
		return sdk.Row{}, err
	}
	o, err := sdk.QueryRow(`SELECT id, branch_id, status FROM orders WHERE id = ? AND patient_id = ?`, strings.ToUpper(strings.TrimSpace(orderID)), patientID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("order %q is not one of this patient's orders", orderID)
	}
	return o, err
}

// ChangeBranchArgs are the arguments of change_pickup_branch.
type ChangeBranchArgs struct {
	// The patient id find_patient returned.
	PatientID string `json:"patient_id"`
	// Order id such as ORD-7002.
	OrderID string `json:"order_id"`
	// The new branch's name.
	BranchName string `json:"branch_name"`
}

// ChangePickupBranch moves a ready order to another branch.
func ChangePickupBranch(args ChangeBranchArgs) (map[string]any, error) {
	o, err := patientOrder(args.PatientID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "ready" {
		return nil, fmt.Errorf("order %s is %s; only a ready order's pickup branch can be changed", o.String("id"), o.String("status"))
	}
	b, err := branchID(args.BranchName)
	if err != nil {
		return nil, err
	}
	if b == o.String("branch_id") {
		return nil, fmt.Errorf("order %s is already at %s", o.String("id"), args.BranchName)
	}
	if _, err := sdk.Exec(`UPDATE orders SET branch_id = ? WHERE id = ?`, b, o.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "branch": strings.TrimSpace(args.BranchName), "status": "ready"}, nil
}

// CancelOrderArgs are the arguments of cancel_order.
type CancelOrderArgs struct {
	// The patient id find_patient returned.
	PatientID string `json:"patient_id"`
	// Order id.
	OrderID string `json:"order_id"`
}

// CancelOrder cancels an order not yet picked up.
func CancelOrder(args CancelOrderArgs) (map[string]any, error) {
	o, err := patientOrder(args.PatientID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if s := o.String("status"); s != "processing" && s != "ready" {
		return nil, fmt.Errorf("order %s is %s and cannot be cancelled", o.String("id"), s)
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'cancelled' WHERE id = ?`, o.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": o.String("id"), "status": "cancelled"}, nil
}
