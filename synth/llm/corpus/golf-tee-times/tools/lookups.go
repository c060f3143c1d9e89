package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetMemberArgs are the arguments of get_member.
type GetMemberArgs struct {
	// the member's email
	Email string `json:"email"`
}

// GetMember finds the signed-in member by email: member id, name and
// membership (full or weekday).
func GetMember(args GetMemberArgs) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT id AS member_id, name, membership FROM members WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no member with email %q", args.Email)
	}
	return m, err
}

// ListCourses lists the courses: id, name and guest fee.
func ListCourses() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, guest_fee FROM courses ORDER BY name")
}

// FindTeeTimesArgs are the arguments of find_tee_times.
type FindTeeTimesArgs struct {
	// course id
	CourseID string `json:"course_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// FindTeeTimes lists a course's tee times on a date, earliest first: tee time
// id, start, players booked and spaces left.
func FindTeeTimes(args FindTeeTimesArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM courses WHERE id = ?", args.CourseID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no course with id %q", args.CourseID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	d, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date))
	if err != nil {
		return sdk.Rows{}, fmt.Errorf("date %q is not in YYYY-MM-DD form", args.Date)
	}
	return sdk.Query("SELECT t.id AS tee_time_id, t.start, (SELECT COUNT(*) FROM booking_players p JOIN bookings b ON b.id = p.booking_id WHERE b.tee_time_id = t.id AND b.status = 'booked' AND p.removed = 0) AS players, t.capacity - (SELECT COUNT(*) FROM booking_players p JOIN bookings b ON b.id = p.booking_id WHERE b.tee_time_id = t.id AND b.status = 'booked' AND p.removed = 0) AS spaces_left FROM tee_times t WHERE t.course_id = ? AND substr(t.start, 1, 10) = ? ORDER BY t.start",
		args.CourseID, d.Format("2006-01-02"))
}

// MemberArgs name a member.
type MemberArgs struct {
	// member id
	MemberID string `json:"member_id"`
}

// ListBookings lists a member's bookings: booking id, course, start, status,
// players (name, member or guest, fee, fee status) and buggy hire.
func ListBookings(args MemberArgs) (map[string]any, error) {
	if _, err := getMember(args.MemberID); err != nil {
		return nil, err
	}
	rows, err := sdk.Query("SELECT b.id FROM bookings b JOIN tee_times t ON t.id = b.tee_time_id WHERE b.member_id = ? ORDER BY t.start", args.MemberID)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, r := range rows.All() {
		v, err := bookingView(r.String("id"))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return map[string]any{"member_id": args.MemberID, "bookings": out}, nil
}

// GetBalance lists what a member owes: unpaid guest fees and unpaid buggy
// hires, with the total.
func GetBalance(args MemberArgs) (map[string]any, error) {
	if _, err := getMember(args.MemberID); err != nil {
		return nil, err
	}
	items, err := sdk.Query("SELECT b.id AS booking_id, substr(t.start, 1, 10) AS date, 'guest fee: ' || p.name AS item, p.fee AS amount FROM booking_players p JOIN bookings b ON b.id = p.booking_id JOIN tee_times t ON t.id = b.tee_time_id WHERE b.member_id = ? AND p.fee_status = 'unpaid' UNION ALL SELECT b.id, h.date, 'buggy hire', h.fee FROM buggy_hires h JOIN bookings b ON b.id = h.booking_id WHERE b.member_id = ? AND h.status = 'unpaid' ORDER BY 2", args.MemberID, args.MemberID)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, r := range items.All() {
		total += r.Float("amount")
	}
	return map[string]any{"member_id": args.MemberID, "items": items, "total_owed": total}, nil
}
