package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindMemberArgs are find_member's arguments.
type FindMemberArgs struct {
	// the member's email
	Email string `json:"email"`
}

// FindMember looks up a member by email with their suspension and recent no-shows.
func FindMember(args FindMemberArgs) (map[string]any, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, suspended_until FROM members WHERE lower(email) = lower(?)", args.Email)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no member with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	since := sdk.Now().UTC().Add(-30 * 24 * time.Hour).Format(time.RFC3339)
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM no_shows WHERE member_id = ? AND recorded_at >= ?", row.String("id"), since)
	if err != nil {
		return nil, err
	}
	var until any
	if !row.IsNull("suspended_until") {
		until = row.String("suspended_until")
	}
	return map[string]any{
		"id":                    row.String("id"),
		"name":                  row.String("name"),
		"email":                 row.String("email"),
		"suspended_until":       until,
		"no_shows_last_30_days": n.Int("n"),
	}, nil
}

// ListMemberBookingsArgs are list_member_bookings' arguments.
type ListMemberBookingsArgs struct {
	// the member's id
	MemberID string `json:"member_id"`
	// first day, YYYY-MM-DD
	FromDate string `json:"from_date,omitempty"`
	// day after the last day, YYYY-MM-DD
	ToDate string `json:"to_date,omitempty"`
}

// ListMemberBookings lists a member's bookings, oldest first.
func ListMemberBookings(args ListMemberBookingsArgs) (out sdk.Rows, err error) {
	if _, err := sdk.QueryRow("SELECT id FROM members WHERE id = ?", args.MemberID); err != nil {
		if errors.Is(err, sdk.ErrNoRows) {
			return out, fmt.Errorf("no member with id %q", args.MemberID)
		}
		return out, err
	}
	q := "SELECT b.id, b.room_id, b.start_at, b.end_at, b.status, COALESCE((SELECT GROUP_CONCAT(m.name, ', ') FROM booking_attendees a JOIN members m ON m.id = a.member_id WHERE a.booking_id = b.id), '') AS attendees FROM bookings b WHERE b.member_id = ?"
	params := []any{args.MemberID}
	if args.FromDate != "" {
		q += " AND b.start_at >= ?"
		params = append(params, args.FromDate)
	}
	if args.ToDate != "" {
		q += " AND b.start_at < ?"
		params = append(params, args.ToDate)
	}
	q += " ORDER BY b.start_at"
	return sdk.Query(q, params...)
}
