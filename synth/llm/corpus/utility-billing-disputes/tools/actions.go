package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// DisputeBillArgs are dispute_bill's arguments.
type DisputeBillArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
	// bill id
	BillID string `json:"bill_id"`
	// the actual meter reading
	Reading int `json:"reading"`
}

// DisputeBill re-issues an estimated bill from an actual reading.
func DisputeBill(args DisputeBillArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	b, err := sdk.QueryRow("SELECT b.id, b.account_number, b.meter_id, b.opening_reading, b.closing_reading, b.estimated, b.amount, b.paid, m.unit_rate FROM bills b JOIN meters m ON m.id = b.meter_id WHERE b.id = ?", args.BillID)
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && b.String("account_number") != a.String("number")) {
		return nil, fmt.Errorf("no bill %q on this account", args.BillID)
	}
	if err != nil {
		return nil, err
	}
	if b.Int("estimated") != 1 {
		return nil, fmt.Errorf("bill %s was based on an actual reading and cannot be disputed", args.BillID)
	}
	if int64(args.Reading) < b.Int("opening_reading") {
		return nil, fmt.Errorf("reading %d is lower than the last actual reading %d", args.Reading, b.Int("opening_reading"))
	}
	newAmount := cents(float64(int64(args.Reading)-b.Int("opening_reading")) * b.Float("unit_rate"))
	old := b.Float("amount")
	credit := 0.0
	if paid := b.Float("paid"); paid > newAmount {
		credit = cents(paid - newAmount)
	}
	if _, err := sdk.Exec("UPDATE bills SET closing_reading = ?, estimated = 0, amount = ?, paid = MIN(paid, ?), status = CASE WHEN MIN(paid, ?) >= ? THEN 'paid' ELSE status END WHERE id = ?", args.Reading, newAmount, newAmount, newAmount, newAmount, args.BillID); err != nil {
		return nil, err
	}
	rid, err := newID("rd", "readings")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO readings (id, meter_id, read_on, value, kind) VALUES (?, ?, ?, ?, 'actual')", rid, b.String("meter_id"), today(), args.Reading); err != nil {
		return nil, err
	}
	did, err := newID("dp", "disputes")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO disputes (id, bill_id, reading, status, credit, raised_on) VALUES (?, ?, ?, 'resolved', ?, ?)", did, args.BillID, args.Reading, cents(old-newAmount), today()); err != nil {
		return nil, err
	}
	if credit > 0 {
		if _, err := sdk.Exec("INSERT INTO credits (account_number, amount, reason, created_on) VALUES (?, ?, ?, ?)", a.String("number"), credit, "dispute "+did+" on bill "+args.BillID, today()); err != nil {
			return nil, err
		}
	}
	return map[string]any{"dispute_id": did, "bill_id": args.BillID, "old_amount": old, "new_amount": newAmount, "credited": credit}, nil
}

// WaiveFeeArgs are waive_fee's arguments.
type WaiveFeeArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
	// fee id
	FeeID string `json:"fee_id"`
}

// WaiveFee waives a charged late-payment fee, once in 12 months.
func WaiveFee(args WaiveFeeArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	f, err := sdk.QueryRow("SELECT id, account_number, amount, status FROM fees WHERE id = ?", args.FeeID)
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && f.String("account_number") != a.String("number")) {
		return nil, fmt.Errorf("no fee %q on this account", args.FeeID)
	}
	if err != nil {
		return nil, err
	}
	if f.String("status") != "charged" {
		return nil, fmt.Errorf("fee %s is %s", args.FeeID, f.String("status"))
	}
	if !a.IsNull("last_fee_waiver_on") && sinceYear(a.String("last_fee_waiver_on")) {
		return nil, fmt.Errorf("a fee was already waived on %s; only one waiver is allowed in 12 months", a.String("last_fee_waiver_on"))
	}
	if _, err := sdk.Exec("UPDATE fees SET status = 'waived', waived_on = ? WHERE id = ?", today(), args.FeeID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE accounts SET last_fee_waiver_on = ? WHERE number = ?", today(), a.String("number")); err != nil {
		return nil, err
	}
	return map[string]any{"fee_id": args.FeeID, "waived": f.Float("amount")}, nil
}

// CreatePaymentPlanArgs are create_payment_plan's arguments.
type CreatePaymentPlanArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
	// number of monthly instalments, 3 to 12
	Instalments int `json:"instalments"`
}

// CreatePaymentPlan spreads what is owed over monthly instalments.
func CreatePaymentPlan(args CreatePaymentPlanArgs) (map[string]any, error) {
	a, err := account(args.AccountNumber)
	if err != nil {
		return nil, err
	}
	n := a.String("number")
	if args.Instalments < 3 || args.Instalments > 12 {
		return nil, errors.New("a plan has 3 to 12 instalments")
	}
	active, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM payment_plans WHERE account_number = ? AND status = 'active'", n)
	if err != nil {
		return nil, err
	}
	if active.Int("n") > 0 {
		return nil, errors.New("the account already has an active payment plan")
	}
	open, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM disputes d JOIN bills b ON b.id = d.bill_id WHERE b.account_number = ? AND d.status = 'open'", n)
	if err != nil {
		return nil, err
	}
	if open.Int("n") > 0 {
		return nil, errors.New("a dispute is open on the account: no payment plan until it is resolved")
	}
	total, err := owed(n)
	if err != nil {
		return nil, err
	}
	if total <= 0 {
		return nil, errors.New("nothing is owed")
	}
	each := cents(total / float64(args.Instalments))
	if each < 20 {
		return nil, fmt.Errorf("%d instalments of %.2f are under the 20.00 minimum; at most %d are possible", args.Instalments, each, int(total/20))
	}
	id, err := newID("pl", "payment_plans")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO payment_plans (id, account_number, total, instalments, instalment_amount, status, created_on) VALUES (?, ?, ?, ?, ?, 'active', ?)", id, n, total, args.Instalments, each, today()); err != nil {
		return nil, err
	}
	return map[string]any{"plan_id": id, "total": total, "instalments": args.Instalments, "instalment_amount": each}, nil
}

// CancelPaymentPlanArgs are cancel_payment_plan's arguments.
type CancelPaymentPlanArgs struct {
	// account number
	AccountNumber string `json:"account_number"`
	// plan id
	PlanID string `json:"plan_id"`
}

// CancelPaymentPlan cancels an account's active plan.
func CancelPaymentPlan(args CancelPaymentPlanArgs) (map[string]any, error) {
	res, err := sdk.Exec("UPDATE payment_plans SET status = 'cancelled' WHERE id = ? AND account_number = ? AND status = 'active'", args.PlanID, strings.TrimSpace(args.AccountNumber))
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("no active plan %q on this account", args.PlanID)
	}
	return map[string]any{"plan_id": args.PlanID, "status": "cancelled"}, nil
}
