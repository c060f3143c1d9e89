package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// minutes parses HH:MM on the hour or half hour.
func minutes(s string) (int, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil || t.Minute()%30 != 0 {
		return 0, fmt.Errorf("time %q must be HH:MM on the hour or half hour", s)
	}
	return t.Hour()*60 + t.Minute(), nil
}

// BookSpaceArgs are the arguments of book_space.
type BookSpaceArgs struct {
	// The member id find_member returned.
	MemberID string `json:"member_id"`
	// Space name such as Atlas or Hot Desk.
	SpaceName string `json:"space_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Start time HH:MM.
	StartTime string `json:"start_time"`
	// End time HH:MM.
	EndTime string `json:"end_time"`
	// People attending (1 for a desk).
	Attendees int `json:"attendees"`
}

// BookSpace books a desk or room within capacity and the member's allowance.
func BookSpace(args BookSpaceArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	sp, err := sdk.QueryRow(`SELECT id, name, kind, capacity FROM spaces WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(args.SpaceName)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no space is called %q", args.SpaceName)
	}
	if err != nil {
		return nil, err
	}
	from, err := minutes(args.StartTime)
	if err != nil {
		return nil, err
	}
	to, err := minutes(args.EndTime)
	if err != nil {
		return nil, err
	}
	if to <= from {
		return nil, fmt.Errorf("the end time must be after the start time")
	}
	date := strings.TrimSpace(args.Date)
	start, err := time.Parse("2006-01-02 15:04", date+" "+strings.TrimSpace(args.StartTime))
	if err != nil {
		return nil, fmt.Errorf("date %q must be YYYY-MM-DD", args.Date)
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("a booking must start in the future")
	}
	if args.Attendees < 1 || int64(args.Attendees) > sp.Int("capacity") {
		return nil, fmt.Errorf("%s holds 1 to %d people, not %d", sp.String("name"), sp.Int("capacity"), args.Attendees)
	}
	st, et := fmt.Sprintf("%02d:%02d", from/60, from%60), fmt.Sprintf("%02d:%02d", to/60, to%60)
	busy, err := sdk.QueryRow(`SELECT COUNT(*) AS n, COALESCE(SUM(attendees), 0) AS people FROM bookings
		WHERE space_id = ? AND booking_date = ? AND status = 'active' AND start_time < ? AND end_time > ?`, sp.String("id"), date, et, st)
	if err != nil {
		return nil, err
	}
	if sp.String("kind") == "room" && busy.Int("n") > 0 {
		return nil, fmt.Errorf("%s is already booked at an overlapping time on %s", sp.String("name"), date)
	}
	if sp.String("kind") == "desk" && busy.Int("people")+int64(args.Attendees) > sp.Int("capacity") {
		return nil, fmt.Errorf("the %s area is full at that time", sp.String("name"))
	}
	hours := float64(to-from) / 60
	used, err := hoursUsed(args.MemberID, date[:7])
	if err != nil {
		return nil, err
	}
	if left := m.Float("monthly_hours") - used; hours > left {
		return nil, fmt.Errorf("this booking needs %g hours but only %g hours remain for %s", hours, left, date[:7])
	}
	rows, err := sdk.Query(`SELECT id FROM bookings WHERE id LIKE 'B-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "B-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("B-%d", max+1)
	if _, err := sdk.Exec(`INSERT INTO bookings (id, member_id, space_id, booking_date, start_time, end_time, hours, attendees, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active')`,
		id, args.MemberID, sp.String("id"), date, st, et, hours, args.Attendees); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": id, "space": sp.String("name"), "date": date, "start_time": st, "end_time": et, "hours": hours}, nil
}

// CancelBookingArgs are the arguments of cancel_booking.
type CancelBookingArgs struct {
	// The member id find_member returned.
	MemberID string `json:"member_id"`
	// Booking id such as B-3002.
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels an active booking at least 24 hours before it starts.
func CancelBooking(args CancelBookingArgs) (map[string]any, error) {
	if _, err := member(args.MemberID); err != nil {
		return nil, err
	}
	b, err := sdk.QueryRow(`SELECT id, booking_date, start_time, hours, status FROM bookings WHERE id = ? AND member_id = ?`, strings.ToUpper(strings.TrimSpace(args.BookingID)), args.MemberID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("booking %q is not one of this member's bookings", args.BookingID)
	}
	if err != nil {
		return nil, err
	}
	if b.String("status") != "active" {
		return nil, fmt.Errorf("booking %s is already %s", b.String("id"), b.String("status"))
	}
	start, err := time.Parse("2006-01-02 15:04", b.String("booking_date")+" "+b.String("start_time"))
	if err != nil {
		return nil, err
	}
	if start.Sub(sdk.Now()) < 24*time.Hour {
		return nil, fmt.Errorf("booking %s starts within 24 hours and can no longer be cancelled", b.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled' WHERE id = ?`, b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "status": "cancelled", "hours_returned": b.Float("hours")}, nil
}
