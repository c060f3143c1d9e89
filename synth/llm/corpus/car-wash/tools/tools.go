package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// maxPauseMonths is the most a membership may pause in a year.
const maxPauseMonths = 2

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func getMembership(id string) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT m.id, m.customer_name, m.plan_id, p.monthly_price, p.rank, m.pending_plan_id, m.status, m.paused_until, m.pause_months_used, m.next_bill_date, m.cancel_at FROM memberships m JOIN plans p ON p.id = m.plan_id WHERE m.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no membership %q", id)
	}
	return m, err
}

func getPlan(id string) (sdk.Row, error) {
	p, err := sdk.QueryRow("SELECT id, name, monthly_price, rank FROM plans WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(id), strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("no plan %q", id)
	}
	return p, err
}

// view is a membership with its vehicles and next bill.
func view(id string) (map[string]any, error) {
	m, err := getMembership(id)
	if err != nil {
		return nil, err
	}
	plan := m.String("plan_id")
	if !m.IsNull("pending_plan_id") {
		plan = m.String("pending_plan_id")
	}
	p, err := getPlan(plan)
	if err != nil {
		return nil, err
	}
	vs, err := sdk.Query("SELECT plate, is_primary FROM vehicles WHERE membership_id = ? ORDER BY is_primary DESC, plate", m.String("id"))
	if err != nil {
		return nil, err
	}
	extra := float64(vs.Len() - 1)
	bill := round2(p.Float("monthly_price") * (1 + extra/2))
	if m.String("status") == "cancelling" || m.String("status") == "cancelled" {
		bill = 0
	}
	cancelAt := ""
	if !m.IsNull("cancel_at") {
		cancelAt = m.String("cancel_at")
	}
	return map[string]any{"membership_id": m.String("id"), "name": m.String("customer_name"), "plan": m.String("plan_id"), "plan_from_next_bill": plan, "status": m.String("status"), "vehicles": vs, "vehicle_count": vs.Len(), "pause_months_left": maxPauseMonths - m.Int("pause_months_used"), "next_bill_date": m.String("next_bill_date"), "next_bill_amount": bill, "cancel_at": cancelAt}, nil
}

func active(id string) (sdk.Row, error) {
	m, err := getMembership(id)
	if err == nil && m.String("status") != "active" {
		err = fmt.Errorf("membership %s is %s", m.String("id"), m.String("status"))
	}
	return m, err
}

// VerifyMemberArgs are the arguments of verify_member.
type VerifyMemberArgs struct {
	// licence plate
	Plate string `json:"plate"`
	// membership number, such as MB-101
	MembershipID string `json:"membership_id"`
}

// VerifyMember verifies a member by a licence plate on the membership and
// the membership number; returns the membership id and name.
func VerifyMember(args VerifyMemberArgs) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT m.id AS membership_id, m.customer_name AS name FROM memberships m JOIN vehicles v ON v.membership_id = m.id WHERE upper(replace(v.plate, ' ', '')) = upper(replace(?, ' ', '')) AND m.id = ?", strings.TrimSpace(args.Plate), strings.ToUpper(strings.TrimSpace(args.MembershipID)))
	if errors.Is(err, sdk.ErrNoRows) {
		return m, errors.New("the plate and membership number do not match")
	}
	return m, err
}

// ListPlans lists the plans: id, name and monthly price.
func ListPlans() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, monthly_price FROM plans ORDER BY rank")
}

// MembershipArgs name a membership.
type MembershipArgs struct {
	// membership number
	MembershipID string `json:"membership_id"`
}

// GetMembership returns a membership: plan, plan from the next bill, status,
// vehicles, pause months left this year, next bill date and amount.
func GetMembership(args MembershipArgs) (map[string]any, error) { return view(args.MembershipID) }

// PlanArgs name a membership and a plan.
type PlanArgs struct {
	// membership number
	MembershipID string `json:"membership_id"`
	// plan id
	PlanID string `json:"plan_id"`
}

// UpgradePlan upgrades to a higher plan now and charges the difference for
// the rest of the month (days left including today over days in the month).
func UpgradePlan(args PlanArgs) (map[string]any, error) {
	m, err := active(args.MembershipID)
	if err != nil {
		return nil, err
	}
	p, err := getPlan(args.PlanID)
	if err != nil {
		return nil, err
	}
	if p.Int("rank") <= m.Int("rank") {
		return nil, fmt.Errorf("%s is not higher than the current plan", p.String("name"))
	}
	now := sdk.Now().UTC()
	days := time.Date(now.Year(), now.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	left := days - now.Day() + 1
	charge := round2((p.Float("monthly_price") - m.Float("monthly_price")) * float64(left) / float64(days))
	if _, err := sdk.Exec("UPDATE memberships SET plan_id = ?, pending_plan_id = NULL WHERE id = ?", p.String("id"), m.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO charges (membership_id, description, amount, date) VALUES (?, ?, ?, ?)", m.String("id"), "Upgrade to "+p.String("name"), charge, now.Format("2006-01-02")); err != nil {
		return nil, err
	}
	v, err := view(m.String("id"))
	if err != nil {
		return nil, err
	}
	v["charged_now"] = charge
	return v, nil
}

// DowngradePlan sets a lower plan from the next bill.
func DowngradePlan(args PlanArgs) (map[string]any, error) {
	m, err := active(args.MembershipID)
	if err != nil {
		return nil, err
	}
	p, err := getPlan(args.PlanID)
	if err != nil {
		return nil, err
	}
	if p.Int("rank") >= m.Int("rank") {
		return nil, fmt.Errorf("%s is not lower than the current plan", p.String("name"))
	}
	if _, err := sdk.Exec("UPDATE memberships SET pending_plan_id = ? WHERE id = ?", p.String("id"), m.String("id")); err != nil {
		return nil, err
	}
	return view(m.String("id"))
}

// AddVehicleArgs are the arguments of add_vehicle.
type AddVehicleArgs struct {
	// membership number
	MembershipID string `json:"membership_id"`
	// licence plate
	Plate string `json:"plate"`
}

// AddVehicle adds a vehicle at half the plan's price a month. It fails when
// the plate is already on a membership.
func AddVehicle(args AddVehicleArgs) (map[string]any, error) {
	m, err := getMembership(args.MembershipID)
	if err != nil {
		return nil, err
	}
	plate := strings.ToUpper(strings.Join(strings.Fields(args.Plate), " "))
	if plate == "" {
		return nil, errors.New("a plate is needed")
	}
	if _, err := sdk.QueryRow("SELECT plate FROM vehicles WHERE upper(replace(plate, ' ', '')) = replace(?, ' ', '')", plate); err == nil {
		return nil, fmt.Errorf("plate %s is already on a membership", plate)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO vehicles (plate, membership_id, is_primary) VALUES (?, ?, 0)", plate, m.String("id")); err != nil {
		return nil, err
	}
	return view(m.String("id"))
}

// PauseArgs are the arguments of pause_membership.
type PauseArgs struct {
	// membership number
	MembershipID string `json:"membership_id"`
	// 1 or 2
	Months int64 `json:"months"`
}

// PauseMembership pauses an active membership from the next bill date for 1
// or 2 months. It fails when that would exceed two months of pauses this year.
func PauseMembership(args PauseArgs) (map[string]any, error) {
	m, err := active(args.MembershipID)
	if err != nil {
		return nil, err
	}
	if args.Months < 1 || args.Months > maxPauseMonths {
		return nil, errors.New("a pause is 1 or 2 months")
	}
	if m.Int("pause_months_used")+args.Months > maxPauseMonths {
		return nil, fmt.Errorf("only %d pause months are left this year", maxPauseMonths-m.Int("pause_months_used"))
	}
	from, err := time.Parse("2006-01-02", m.String("next_bill_date"))
	if err != nil {
		return nil, err
	}
	until := from.AddDate(0, int(args.Months), 0).Format("2006-01-02")
	if _, err := sdk.Exec("UPDATE memberships SET status = 'paused', paused_until = ?, pause_months_used = pause_months_used + ?, next_bill_date = ? WHERE id = ?", until, args.Months, until, m.String("id")); err != nil {
		return nil, err
	}
	return view(m.String("id"))
}

// CancelMembership cancels a membership at the end of the current month.
func CancelMembership(args MembershipArgs) (map[string]any, error) {
	m, err := getMembership(args.MembershipID)
	if err != nil {
		return nil, err
	}
	if s := m.String("status"); s == "cancelling" || s == "cancelled" {
		return nil, fmt.Errorf("membership %s is already %s", m.String("id"), s)
	}
	now := sdk.Now().UTC()
	end := time.Date(now.Year(), now.Month()+1, 0, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	if _, err := sdk.Exec("UPDATE memberships SET status = 'cancelling', cancel_at = ? WHERE id = ?", end, m.String("id")); err != nil {
		return nil, err
	}
	return view(m.String("id"))
}
