package tools

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindMemberArgs are find_member's arguments.
type FindMemberArgs struct {
	// member's email
	Email string `json:"email"`
}

// FindMember looks up a member by email.
func FindMember(args FindMemberArgs) (map[string]any, error) {
	row, err := sdk.QueryRow("SELECT m.id, m.name, p.name AS plan FROM members m JOIN plans p ON p.id = m.plan_id WHERE lower(m.email) = lower(?)", args.Email)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no member with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"member_id": row.String("id"), "name": row.String("name"), "plan": row.String("plan")}, nil
}

// MemberArgs name one member.
type MemberArgs struct {
	// member id
	MemberID string `json:"member_id"`
}

// GetMembership returns a member's plan, billing, term, freezes and what is overdue.
func GetMembership(args MemberArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	fee, effective, err := cancellationFee(m)
	if err != nil {
		return nil, err
	}
	freezes, err := sdk.Query("SELECT id, starts_on, ends_on, created_on FROM freezes WHERE member_id = ? ORDER BY created_on", args.MemberID)
	if err != nil {
		return nil, err
	}
	overdue, err := sdk.Query("SELECT id, kind, amount, due_on FROM payments WHERE member_id = ? AND status = 'overdue' ORDER BY due_on", args.MemberID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"member_id": m.String("id"), "plan_id": m.String("plan_id"), "plan": m.String("plan"), "monthly_fee": m.Float("monthly_fee"),
		"status": m.String("status"), "billing_day": m.Int("billing_day"), "next_billing_date": nextBilling(int(m.Int("billing_day"))).Format(day),
		"min_term_ends_on": m.String("min_term_ends_on"), "cancellation_fee_if_cancelled_today": fee, "cancellation_would_end_on": effective.Format(day),
		"freezes": freezes, "overdue_payments": overdue,
	}
	if !m.IsNull("pending_plan_id") {
		out["pending_plan_id"] = m.String("pending_plan_id")
		out["pending_plan_from"] = m.String("pending_plan_from")
	}
	if !m.IsNull("cancel_effective_on") {
		out["cancel_effective_on"] = m.String("cancel_effective_on")
	}
	return out, nil
}

// ListPlans lists the plans.
func ListPlans() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, monthly_fee, free_sessions_per_month FROM plans ORDER BY monthly_fee")
}

// ChangePlanArgs are change_plan's arguments.
type ChangePlanArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// plan id such as p-prem
	PlanID string `json:"plan_id"`
}

// ChangePlan upgrades a plan today (pro-rated) or schedules a downgrade.
func ChangePlan(args ChangePlanArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	if m.String("status") == "cancelled" || !m.IsNull("cancel_effective_on") {
		return nil, errors.New("the membership is cancelled")
	}
	p, err := sdk.QueryRow("SELECT id, name, monthly_fee, free_sessions_per_month FROM plans WHERE id = ?", args.PlanID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no plan with id %q", args.PlanID)
	}
	if err != nil {
		return nil, err
	}
	if args.PlanID == m.String("plan_id") {
		return nil, fmt.Errorf("the member is already on %s", p.String("name"))
	}
	next := nextBilling(int(m.Int("billing_day")))
	if p.Float("monthly_fee") <= m.Float("monthly_fee") {
		if _, err := sdk.Exec("UPDATE members SET pending_plan_id = ?, pending_plan_from = ? WHERE id = ?", args.PlanID, next.Format(day), args.MemberID); err != nil {
			return nil, err
		}
		return map[string]any{"plan": p.String("name"), "starts_on": next.Format(day), "charged": 0}, nil
	}
	days := int(next.Sub(today()).Hours() / 24)
	charge := cents((p.Float("monthly_fee") - m.Float("monthly_fee")) * float64(days) / 30)
	id, err := newID("pay", "payments")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO payments (id, member_id, kind, amount, due_on, status) VALUES (?, ?, 'plan_change', ?, ?, 'scheduled')", id, args.MemberID, charge, today().Format(day)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE members SET plan_id = ?, pending_plan_id = NULL, pending_plan_from = NULL WHERE id = ?", args.PlanID, args.MemberID); err != nil {
		return nil, err
	}
	out := map[string]any{"plan": p.String("name"), "starts_on": today().Format(day), "charged": charge, "days_to_next_billing": days}
	if free := p.Int("free_sessions_per_month"); free > m.Int("free_sessions_per_month") {
		pack, err := newID("cp", "credit_packs")
		if err != nil {
			return nil, err
		}
		if _, err := sdk.Exec("INSERT INTO credit_packs (id, member_id, name, sessions_total, sessions_used, bought_on, expires_on) VALUES (?, ?, ?, ?, 0, ?, ?)",
			pack, args.MemberID, p.String("name")+" monthly session", free, today().Format(day), next.AddDate(0, 0, -1).Format(day)); err != nil {
			return nil, err
		}
		out["free_session_pack"] = pack
	}
	return out, nil
}

// FreezeMembershipArgs are freeze_membership's arguments.
type FreezeMembershipArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// first day of the freeze, YYYY-MM-DD
	StartDate string `json:"start_date"`
	// 1, 2 or 3
	Months int `json:"months"`
}

// FreezeMembership freezes a membership for whole months.
func FreezeMembership(args FreezeMembershipArgs) (map[string]any, error) {
	if _, err := member(args.MemberID); err != nil {
		return nil, err
	}
	if args.Months < 1 || args.Months > 3 {
		return nil, errors.New("a freeze lasts 1 to 3 months")
	}
	start, err := parseDay(args.StartDate)
	if err != nil {
		return nil, err
	}
	if start.Before(today()) {
		return nil, errors.New("a freeze cannot start in the past")
	}
	recent, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM freezes WHERE member_id = ? AND created_on > ?", args.MemberID, today().AddDate(-1, 0, 0).Format(day))
	if err != nil {
		return nil, err
	}
	if recent.Int("n") > 0 {
		return nil, errors.New("the member already set up a freeze in the last 12 months")
	}
	overdue, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM payments WHERE member_id = ? AND status = 'overdue'", args.MemberID)
	if err != nil {
		return nil, err
	}
	if overdue.Int("n") > 0 {
		return nil, errors.New("the member has an overdue payment and cannot freeze")
	}
	end := start.AddDate(0, args.Months, -1)
	id, err := newID("fz", "freezes")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO freezes (id, member_id, starts_on, ends_on, created_on) VALUES (?, ?, ?, ?, ?)", id, args.MemberID, start.Format(day), end.Format(day), today().Format(day)); err != nil {
		return nil, err
	}
	return map[string]any{"freeze_id": id, "starts_on": start.Format(day), "ends_on": end.Format(day)}, nil
}

// CancelMembership cancels with 30 days' notice and any early-cancellation fee.
func CancelMembership(args MemberArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	if m.String("status") == "cancelled" || !m.IsNull("cancel_effective_on") {
		return nil, errors.New("the membership is already cancelled")
	}
	fee, effective, err := cancellationFee(m)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE members SET cancel_effective_on = ? WHERE id = ?", effective.Format(day), args.MemberID); err != nil {
		return nil, err
	}
	if fee > 0 {
		id, err := newID("pay", "payments")
		if err != nil {
			return nil, err
		}
		if _, err := sdk.Exec("INSERT INTO payments (id, member_id, kind, amount, due_on, status) VALUES (?, ?, 'cancellation_fee', ?, ?, 'scheduled')", id, args.MemberID, fee, effective.Format(day)); err != nil {
			return nil, err
		}
	}
	return map[string]any{"ends_on": effective.Format(day), "fee": fee}, nil
}
