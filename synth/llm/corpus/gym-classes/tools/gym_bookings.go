package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// rank orders the membership levels.
func rank(level string) int {
	switch level {
	case "basic":
		return 1
	case "plus":
		return 2
	case "premium":
		return 3
	}
	return 0
}

// bookable loads a class and checks what joining it needs in common:
// the member, the level, that it has not started, no earlier booking.
// It returns the class and how many spots are left.
func bookable(memberID, classID string) (sdk.Row, int64, error) {
	m, err := sdk.QueryRow(`SELECT id, level FROM members WHERE id = ?`, memberID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, 0, fmt.Errorf("no member has the id %s", memberID)
	} else if err != nil {
		return sdk.Row{}, 0, err
	}
	c, err := sdk.QueryRow(`SELECT id, name, starts_at, capacity, min_level,
			capacity - (SELECT count(*) FROM bookings b WHERE b.class_id = classes.id AND b.status = 'booked') AS spots_left
		FROM classes WHERE id = ?`, classID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, 0, fmt.Errorf("no class has the id %s", classID)
	} else if err != nil {
		return sdk.Row{}, 0, err
	}
	if rank(m.String("level")) < rank(c.String("min_level")) {
		return sdk.Row{}, 0, fmt.Errorf("%s needs a %s membership; the member has %s", c.String("name"), c.String("min_level"), m.String("level"))
	}
	if c.String("starts_at") <= sdk.Now().Format(time.RFC3339) {
		return sdk.Row{}, 0, errors.New("the class has already started")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM bookings WHERE class_id = ? AND member_id = ? AND status IN ('booked','waitlisted')`, classID, memberID); err == nil {
		return sdk.Row{}, 0, errors.New("the member already booked or waitlisted this class")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, 0, err
	}
	return c, c.Int("spots_left"), nil
}

func addBooking(memberID, classID, status string) (sdk.Row, error) {
	res, err := sdk.Exec(`INSERT INTO bookings (class_id, member_id, status, created_at, cancelled_at) VALUES (?, ?, ?, ?, NULL)`,
		classID, memberID, status, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT b.id AS booking_id, c.name AS class, c.starts_at, b.status FROM bookings b JOIN classes c ON c.id = b.class_id WHERE b.id = ?`, res.LastInsertID)
}

// BookClassArgs are the arguments of book_class.
type BookClassArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
	// The class's id from list_classes.
	ClassID string `json:"class_id"`
}

// BookClass books a spot in a class with room, at the member's level.
func BookClass(args BookClassArgs) (sdk.Row, error) {
	_, left, err := bookable(args.MemberID, args.ClassID)
	if err != nil {
		return sdk.Row{}, err
	}
	if left <= 0 {
		return sdk.Row{}, errors.New("the class is full: the member can join its waitlist")
	}
	return addBooking(args.MemberID, args.ClassID, "booked")
}

// JoinWaitlistArgs are the arguments of join_waitlist.
type JoinWaitlistArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
	// The class's id from list_classes.
	ClassID string `json:"class_id"`
}

// JoinWaitlist puts the member on a full class's waitlist.
func JoinWaitlist(args JoinWaitlistArgs) (sdk.Row, error) {
	_, left, err := bookable(args.MemberID, args.ClassID)
	if err != nil {
		return sdk.Row{}, err
	}
	if left > 0 {
		return sdk.Row{}, errors.New("the class still has free spots: book it instead")
	}
	return addBooking(args.MemberID, args.ClassID, "waitlisted")
}

// CancelBookingArgs are the arguments of cancel_booking.
type CancelBookingArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
	// The booking's id from list_my_bookings.
	BookingID int64 `json:"booking_id"`
}

// CancelBooking cancels a booking or waitlist place 2 hours ahead.
func CancelBooking(args CancelBookingArgs) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.id, b.status, c.starts_at FROM bookings b JOIN classes c ON c.id = b.class_id WHERE b.id = ? AND b.member_id = ?`,
		args.BookingID, args.MemberID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the member has no booking %d", args.BookingID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") == "cancelled" {
		return sdk.Row{}, fmt.Errorf("booking %d is already cancelled", args.BookingID)
	}
	start, err := time.Parse(time.RFC3339, b.String("starts_at"))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("the class has an unreadable start time")
	}
	if start.Sub(sdk.Now()) < 2*time.Hour {
		return sdk.Row{}, errors.New("the class starts within 2 hours: it can no longer be cancelled")
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ?`, sdk.Now().Format(time.RFC3339), args.BookingID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT b.id AS booking_id, c.name AS class, c.starts_at, b.status FROM bookings b JOIN classes c ON c.id = b.class_id WHERE b.id = ?`, args.BookingID)
}
