package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// parseDay parses a YYYY-MM-DD date.
func parseDay(s string) (time.Time, error) {
	t, err := time.Parse(day, s)
	if err != nil {
		return t, fmt.Errorf("%q is not a date YYYY-MM-DD", s)
	}
	return t, nil
}

// freeSlot returns a slot that exists, is in the future and has no booked session.
func freeSlot(slotID string) (s sdk.Row, err error) {
	s, err = sdk.QueryRow("SELECT ts.id, ts.starts_at, t.name AS trainer, (SELECT COUNT(*) FROM sessions se WHERE se.slot_id = ts.id AND se.status = 'booked') AS taken FROM trainer_slots ts JOIN trainers t ON t.id = ts.trainer_id WHERE ts.id = ?", slotID)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no slot with id %q", slotID)
	}
	if err != nil {
		return s, err
	}
	if s.Int("taken") > 0 {
		return s, fmt.Errorf("slot %s is already booked", slotID)
	}
	if s.String("starts_at") <= sdk.Now().UTC().Format(time.RFC3339) {
		return s, fmt.Errorf("slot %s is in the past", slotID)
	}
	return s, nil
}

// ListTrainerSlotsArgs are list_trainer_slots' arguments.
type ListTrainerSlotsArgs struct {
	// YYYY-MM-DD
	FromDate string `json:"from_date"`
	// YYYY-MM-DD
	ToDate string `json:"to_date"`
	// trainer name such as Ana
	Trainer string `json:"trainer,omitempty"`
}

// ListTrainerSlots lists free training slots, earliest first.
func ListTrainerSlots(args ListTrainerSlotsArgs) (sdk.Rows, error) {
	q := "SELECT ts.id, t.name AS trainer, ts.starts_at FROM trainer_slots ts JOIN trainers t ON t.id = ts.trainer_id WHERE substr(ts.starts_at, 1, 10) >= ? AND substr(ts.starts_at, 1, 10) <= ? AND ts.starts_at > ? AND NOT EXISTS (SELECT 1 FROM sessions se WHERE se.slot_id = ts.id AND se.status = 'booked')"
	params := []any{args.FromDate, args.ToDate, sdk.Now().UTC().Format(time.RFC3339)}
	if args.Trainer != "" {
		q += " AND (lower(t.name) = lower(?) OR lower(t.name) LIKE lower(?) || ' %')"
		params = append(params, args.Trainer, args.Trainer)
	}
	return sdk.Query(q+" ORDER BY ts.starts_at", params...)
}

// ListCreditPacks lists a member's packs, the one expiring first first.
func ListCreditPacks(args MemberArgs) (out sdk.Rows, err error) {
	if _, err := member(args.MemberID); err != nil {
		return out, err
	}
	return sdk.Query("SELECT id, name, sessions_total, sessions_used, sessions_total - sessions_used AS credits_left, bought_on, expires_on FROM credit_packs WHERE member_id = ? ORDER BY expires_on, id", args.MemberID)
}

// ListSessions lists a member's booked sessions.
func ListSessions(args MemberArgs) (out sdk.Rows, err error) {
	if _, err := member(args.MemberID); err != nil {
		return out, err
	}
	return sdk.Query("SELECT se.id, t.name AS trainer, ts.starts_at, se.credit_pack_id FROM sessions se JOIN trainer_slots ts ON ts.id = se.slot_id JOIN trainers t ON t.id = ts.trainer_id WHERE se.member_id = ? AND se.status = 'booked' ORDER BY ts.starts_at", args.MemberID)
}

// SessionSlotArgs name a member and a slot.
type SessionSlotArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// slot id
	SlotID string `json:"slot_id"`
}

// BookSession books a free slot with a credit from the pack expiring first.
func BookSession(args SessionSlotArgs) (map[string]any, error) {
	if _, err := member(args.MemberID); err != nil {
		return nil, err
	}
	s, err := freeSlot(args.SlotID)
	if err != nil {
		return nil, err
	}
	date := s.String("starts_at")[:10]
	frozen, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM freezes WHERE member_id = ? AND starts_on <= ? AND ends_on >= ?", args.MemberID, date, date)
	if err != nil {
		return nil, err
	}
	if frozen.Int("n") > 0 {
		return nil, fmt.Errorf("the membership is frozen on %s", date)
	}
	pack, err := sdk.QueryRow("SELECT id FROM credit_packs WHERE member_id = ? AND sessions_used < sessions_total AND expires_on >= ? ORDER BY expires_on, id LIMIT 1", args.MemberID, date)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("the member has no training credit valid on %s", date)
	}
	if err != nil {
		return nil, err
	}
	id, err := newID("se", "sessions")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE credit_packs SET sessions_used = sessions_used + 1 WHERE id = ?", pack.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO sessions (id, member_id, slot_id, credit_pack_id, status) VALUES (?, ?, ?, ?, 'booked')", id, args.MemberID, args.SlotID, pack.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"session_id": id, "trainer": s.String("trainer"), "starts_at": s.String("starts_at"), "credit_pack_id": pack.String("id")}, nil
}

// SessionArgs name a member's session.
type SessionArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// session id
	SessionID string `json:"session_id"`
}

// bookedSession returns a member's booked session.
func bookedSession(memberID, sessionID string) (s sdk.Row, err error) {
	s, err = sdk.QueryRow("SELECT id, member_id, slot_id, credit_pack_id, status FROM sessions WHERE id = ?", sessionID)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no session with id %q", sessionID)
	}
	if err != nil {
		return s, err
	}
	if s.String("member_id") != memberID {
		return s, fmt.Errorf("session %s is not this member's", sessionID)
	}
	if s.String("status") != "booked" {
		return s, fmt.Errorf("session %s is %s", sessionID, s.String("status"))
	}
	return s, nil
}

// CancelSession cancels a booked session and returns its credit.
func CancelSession(args SessionArgs) (map[string]any, error) {
	s, err := bookedSession(args.MemberID, args.SessionID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE sessions SET status = 'cancelled' WHERE id = ?", args.SessionID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE credit_packs SET sessions_used = sessions_used - 1 WHERE id = ? AND sessions_used > 0", s.String("credit_pack_id")); err != nil {
		return nil, err
	}
	return map[string]any{"session_id": args.SessionID, "status": "cancelled", "credit_returned_to": s.String("credit_pack_id")}, nil
}

// MoveSessionArgs are move_session's arguments.
type MoveSessionArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// session id
	SessionID string `json:"session_id"`
	// new slot id
	SlotID string `json:"slot_id"`
}

// MoveSession moves a booked session to another free slot.
func MoveSession(args MoveSessionArgs) (map[string]any, error) {
	if _, err := bookedSession(args.MemberID, args.SessionID); err != nil {
		return nil, err
	}
	s, err := freeSlot(args.SlotID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE sessions SET slot_id = ? WHERE id = ?", args.SlotID, args.SessionID); err != nil {
		return nil, err
	}
	return map[string]any{"session_id": args.SessionID, "trainer": s.String("trainer"), "starts_at": s.String("starts_at")}, nil
}

// BuyCreditPackArgs are buy_credit_pack's arguments.
type BuyCreditPackArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// pp-5 or pp-10
	ProductID string `json:"product_id"`
}

// BuyCreditPack buys a credit pack.
func BuyCreditPack(args BuyCreditPackArgs) (map[string]any, error) {
	if _, err := member(args.MemberID); err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow("SELECT id, name, sessions, price, valid_days FROM pack_products WHERE id = ?", args.ProductID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no pack product %q (pp-5 or pp-10)", args.ProductID)
	}
	if err != nil {
		return nil, err
	}
	id, err := newID("cp", "credit_packs")
	if err != nil {
		return nil, err
	}
	expires := today().AddDate(0, 0, int(p.Int("valid_days"))).Format(day)
	if _, err := sdk.Exec("INSERT INTO credit_packs (id, member_id, name, sessions_total, sessions_used, bought_on, expires_on) VALUES (?, ?, ?, ?, 0, ?, ?)", id, args.MemberID, p.String("name"), p.Int("sessions"), today().Format(day), expires); err != nil {
		return nil, err
	}
	pay, err := newID("pay", "payments")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO payments (id, member_id, kind, amount, due_on, status) VALUES (?, ?, 'credit_pack', ?, ?, 'paid')", pay, args.MemberID, p.Float("price"), today().Format(day)); err != nil {
		return nil, err
	}
	return map[string]any{"credit_pack_id": id, "sessions": p.Int("sessions"), "expires_on": expires, "charged": p.Float("price")}, nil
}

// ListGuestPasses lists a member's passes and this month's given count.
func ListGuestPasses(args MemberArgs) (map[string]any, error) {
	if _, err := member(args.MemberID); err != nil {
		return nil, err
	}
	passes, err := sdk.Query("SELECT id, expires_on, guest_name, visit_on, given_on FROM guest_passes WHERE member_id = ? ORDER BY expires_on, id", args.MemberID)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM guest_passes WHERE member_id = ? AND substr(given_on, 1, 7) = ?", args.MemberID, today().Format("2006-01"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"passes": passes, "given_this_month": n.Int("n"), "monthly_limit": 2}, nil
}

// GiveGuestPassArgs are give_guest_pass' arguments.
type GiveGuestPassArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// pass id
	PassID string `json:"pass_id"`
	// guest's full name
	GuestName string `json:"guest_name"`
	// visit date YYYY-MM-DD
	VisitOn string `json:"visit_on"`
}

// GiveGuestPass gives an unused pass to a guest for a visit date.
func GiveGuestPass(args GiveGuestPassArgs) (map[string]any, error) {
	p, err := sdk.QueryRow("SELECT id, member_id, expires_on, guest_name FROM guest_passes WHERE id = ?", args.PassID)
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && p.String("member_id") != args.MemberID) {
		return nil, fmt.Errorf("no pass %q of this member", args.PassID)
	}
	if err != nil {
		return nil, err
	}
	if !p.IsNull("guest_name") {
		return nil, fmt.Errorf("pass %s is already used", args.PassID)
	}
	visit, err := parseDay(args.VisitOn)
	if err != nil {
		return nil, err
	}
	if visit.Before(today()) {
		return nil, errors.New("the visit date is in the past")
	}
	if args.VisitOn > p.String("expires_on") {
		return nil, fmt.Errorf("pass %s expires on %s, before the visit", args.PassID, p.String("expires_on"))
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM guest_passes WHERE member_id = ? AND substr(given_on, 1, 7) = ?", args.MemberID, today().Format("2006-01"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") >= 2 {
		return nil, errors.New("the member already gave 2 guest passes this month")
	}
	if _, err := sdk.Exec("UPDATE guest_passes SET guest_name = ?, visit_on = ?, given_on = ? WHERE id = ?", args.GuestName, args.VisitOn, today().Format(day), args.PassID); err != nil {
		return nil, err
	}
	return map[string]any{"pass_id": args.PassID, "guest_name": args.GuestName, "visit_on": args.VisitOn}, nil
}
