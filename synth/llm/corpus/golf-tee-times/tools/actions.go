package tools

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookTeeTimeArgs are the arguments of book_tee_time.
type BookTeeTimeArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// tee time id
	TeeTimeID string `json:"tee_time_id"`
	// guests' full names (0 to 3)
	Guests []string `json:"guests,omitempty"`
}

// BookTeeTime books a tee time for the member and named guests (the course's
// guest fee each, unpaid). It fails when the tee time is past or lacks spaces
// for everyone, when the member already has a booking that day, or when a
// weekday member asks for a weekend tee time before 12:00.
func BookTeeTime(args BookTeeTimeArgs) (map[string]any, error) {
	m, err := getMember(args.MemberID)
	if err != nil {
		return nil, err
	}
	if len(args.Guests) > 3 {
		return nil, errors.New("a booking has at most 3 guests")
	}
	var guests []string
	for _, g := range args.Guests {
		n, err := cleanName(g)
		if err != nil {
			return nil, err
		}
		guests = append(guests, n)
	}
	t, err := teeTime(args.TeeTimeID)
	if err != nil {
		return nil, err
	}
	if err := bookable(m, t, 1+len(guests), ""); err != nil {
		return nil, err
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 3) AS INTEGER)), 100) + 1 AS n FROM bookings WHERE id LIKE 'b-%'")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("b-%d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO bookings (id, member_id, tee_time_id, status) VALUES (?, ?, ?, 'booked')", id, m.String("id"), t.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO booking_players (booking_id, name, kind, fee, fee_status, removed) VALUES (?, ?, 'member', 0, 'none', 0)", id, m.String("name")); err != nil {
		return nil, err
	}
	for _, g := range guests {
		if _, err := sdk.Exec("INSERT INTO booking_players (booking_id, name, kind, fee, fee_status, removed) VALUES (?, ?, 'guest', ?, 'unpaid', 0)", id, g, t.Float("guest_fee")); err != nil {
			return nil, err
		}
	}
	return bookingView(id)
}

// GuestArgs name a guest on a booking.
type GuestArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// the guest's full name
	Name string `json:"name"`
}

// AddGuest adds a named guest to a booked booking, charging the course's
// guest fee. It fails when the tee time has no space left or the booking
// already has 3 guests.
func AddGuest(args GuestArgs) (map[string]any, error) {
	b, err := bookedBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	name, err := cleanName(args.Name)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM booking_players WHERE booking_id = ? AND kind = 'guest' AND removed = 0", b.String("id"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") >= 3 {
		return nil, fmt.Errorf("booking %s already has 3 guests", b.String("id"))
	}
	t, err := teeTime(b.String("tee_time_id"))
	if err != nil {
		return nil, err
	}
	if t.Int("players") >= t.Int("capacity") {
		return nil, fmt.Errorf("tee time %s has no space left", t.String("id"))
	}
	if _, err := sdk.Exec("INSERT INTO booking_players (booking_id, name, kind, fee, fee_status, removed) VALUES (?, ?, 'guest', ?, 'unpaid', 0)", b.String("id"), name, b.Float("guest_fee")); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// RemoveGuest removes a guest from a booked booking. 48 hours or more before
// the tee time the guest fee is refunded; later it stays due.
func RemoveGuest(args GuestArgs) (map[string]any, error) {
	b, err := bookedBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	name, err := cleanName(args.Name)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow("SELECT id, fee_status FROM booking_players WHERE booking_id = ? AND kind = 'guest' AND removed = 0 AND lower(name) = lower(?)", b.String("id"), name)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("%s is not a guest on booking %s", name, b.String("id"))
	}
	if err != nil {
		return nil, err
	}
	h, err := hoursBefore(b)
	if err != nil {
		return nil, err
	}
	status := p.String("fee_status")
	if h >= refundHours {
		status = "refunded"
	}
	if _, err := sdk.Exec("UPDATE booking_players SET removed = 1, fee_status = ? WHERE id = ?", status, p.Int("id")); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// MoveBookingArgs are the arguments of move_booking.
type MoveBookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// the new tee time id
	TeeTimeID string `json:"tee_time_id"`
}

// MoveBooking moves a booked booking, with all its players, to another tee
// time; fees stay as they are. It fails when that tee time lacks spaces for
// all the players, breaks the weekend-morning rule, or the member has another
// booking that day.
func MoveBooking(args MoveBookingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	m, err := getMember(b.String("member_id"))
	if err != nil {
		return nil, err
	}
	t, err := teeTime(args.TeeTimeID)
	if err != nil {
		return nil, err
	}
	if t.String("id") == b.String("tee_time_id") {
		return nil, errors.New("the booking is already at that tee time")
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM booking_players WHERE booking_id = ? AND removed = 0", b.String("id"))
	if err != nil {
		return nil, err
	}
	if err := bookable(m, t, int(n.Int("n")), b.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET tee_time_id = ? WHERE id = ?", t.String("id"), b.String("id")); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// BookingArgs name a booking.
type BookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels a booked booking. 48 hours or more before the tee
// time its guest fees are refunded and its buggy hire cancelled; later they
// stay due.
func CancelBooking(args BookingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	h, err := hoursBefore(b)
	if err != nil {
		return nil, err
	}
	if h >= refundHours {
		if _, err := sdk.Exec("UPDATE booking_players SET fee_status = 'refunded' WHERE booking_id = ? AND kind = 'guest' AND fee_status IN ('unpaid', 'paid')", b.String("id")); err != nil {
			return nil, err
		}
		if _, err := sdk.Exec("UPDATE buggy_hires SET status = 'cancelled' WHERE booking_id = ?", b.String("id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ?", stamp(sdk.Now()), b.String("id")); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// RentBuggy hires a buggy (30.00, unpaid) for a booked booking, if one of the
// club's buggies is free that day. It fails when the booking already has one
// or none is free.
func RentBuggy(args BookingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow("SELECT id FROM buggy_hires WHERE booking_id = ? AND status <> 'cancelled'", b.String("id")); err == nil {
		return nil, fmt.Errorf("booking %s already has a buggy", b.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	day := b.String("start")[:10]
	bg, err := sdk.QueryRow("SELECT id FROM buggies WHERE id NOT IN (SELECT buggy_id FROM buggy_hires WHERE date = ? AND status <> 'cancelled') ORDER BY id LIMIT 1", day)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no buggy is free on %s", day)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO buggy_hires (booking_id, buggy_id, date, fee, status) VALUES (?, ?, ?, ?, 'unpaid')", b.String("id"), bg.String("id"), day, buggyFee); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// PayBooking pays every unpaid guest fee and buggy hire of one booking. It
// fails when nothing is owed on it.
func PayBooking(args BookingArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow("SELECT id FROM bookings WHERE id = ?", args.BookingID); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no booking with id %q", args.BookingID)
	} else if err != nil {
		return nil, err
	}
	owed, err := sdk.QueryRow("SELECT (SELECT COALESCE(SUM(fee), 0) FROM booking_players WHERE booking_id = ? AND fee_status = 'unpaid') + (SELECT COALESCE(SUM(fee), 0) FROM buggy_hires WHERE booking_id = ? AND status = 'unpaid') AS owed", args.BookingID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if owed.Float("owed") <= 0 {
		return nil, fmt.Errorf("nothing is owed on booking %s", args.BookingID)
	}
	if _, err := sdk.Exec("UPDATE booking_players SET fee_status = 'paid' WHERE booking_id = ? AND fee_status = 'unpaid'", args.BookingID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE buggy_hires SET status = 'paid' WHERE booking_id = ? AND status = 'unpaid'", args.BookingID); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": args.BookingID, "paid": owed.Float("owed")}, nil
}
