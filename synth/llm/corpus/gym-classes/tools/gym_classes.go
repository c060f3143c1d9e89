package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindMemberArgs are the arguments of find_member.
type FindMemberArgs struct {
	// The member's email address.
	Email string `json:"email"`
}

// FindMember finds a member by email.
func FindMember(args FindMemberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, level FROM members WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the email %s", args.Email)
	}
	return row, err
}

// ListClassesArgs are the arguments of list_classes.
type ListClassesArgs struct {
	// The day, YYYY-MM-DD.
	Date string `json:"date"`
	// Only classes with this name.
	Name string `json:"name,omitempty"`
}

// ListClasses lists a day's classes with the spots booked and left.
func ListClasses(args ListClassesArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT c.id AS class_id, c.name, c.starts_at, c.instructor, c.min_level AS level, c.capacity,
			(SELECT count(*) FROM bookings b WHERE b.class_id = c.id AND b.status = 'booked') AS booked,
			c.capacity - (SELECT count(*) FROM bookings b WHERE b.class_id = c.id AND b.status = 'booked') AS spots_left
		FROM classes c WHERE substr(c.starts_at, 1, 10) = ? AND (? = '' OR lower(c.name) = lower(?)) ORDER BY c.starts_at, c.name`,
		strings.TrimSpace(args.Date), args.Name, args.Name)
}

// ListMyBookingsArgs are the arguments of list_my_bookings.
type ListMyBookingsArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
}

// ListMyBookings lists the member's bookings and waitlist places.
func ListMyBookings(args ListMyBookingsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM members WHERE id = ?`, args.MemberID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no member has the id %s", args.MemberID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, c.name AS class, c.starts_at, b.status FROM bookings b JOIN classes c ON c.id = b.class_id
		WHERE b.member_id = ? ORDER BY c.starts_at`, args.MemberID)
}
