package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// loadBooking returns a member's booked booking with its times parsed.
func loadBooking(memberID, bookingID string) (sdk.Row, time.Time, time.Time, error) {
	row, err := sdk.QueryRow("SELECT id, room_id, member_id, start_at, end_at, status FROM bookings WHERE id = ?", bookingID)
	if errors.Is(err, sdk.ErrNoRows) {
		return row, time.Time{}, time.Time{}, fmt.Errorf("no booking with id %q", bookingID)
	}
	if err != nil {
		return row, time.Time{}, time.Time{}, err
	}
	if row.String("member_id") != memberID {
		return row, time.Time{}, time.Time{}, fmt.Errorf("booking %s is not this member's", bookingID)
	}
	if row.String("status") != "booked" {
		return row, time.Time{}, time.Time{}, fmt.Errorf("booking %s is %s, not booked", bookingID, row.String("status"))
	}
	start, err := time.Parse(time.RFC3339, row.String("start_at"))
	if err != nil {
		return row, time.Time{}, time.Time{}, err
	}
	end, err := time.Parse(time.RFC3339, row.String("end_at"))
	if err != nil {
		return row, time.Time{}, time.Time{}, err
	}
	return row, start.UTC(), end.UTC(), nil
}

// bookingResult describes a booking after a change.
func bookingResult(id, roomID string, start, end time.Time, status string) map[string]any {
	return map[string]any{"booking_id": id, "room_id": roomID, "start_at": start.Format(time.RFC3339), "end_at": end.Format(time.RFC3339), "hours": int(end.Sub(start).Hours()), "status": status}
}

// BookRoomArgs are book_room's arguments.
type BookRoomArgs struct {
	// the booking member's id
	MemberID string `json:"member_id"`
	// room id
	RoomID string `json:"room_id"`
	// start, ISO-8601 UTC on the hour
	StartAt string `json:"start_at"`
	// end, ISO-8601 UTC on the hour
	EndAt string `json:"end_at"`
	// emails of the other members attending
	AttendeeEmails []string `json:"attendee_emails,omitempty"`
}

// BookRoom books a room for a member under every booking rule.
func BookRoom(args BookRoomArgs) (map[string]any, error) {
	if err := checkNotSuspended(args.MemberID); err != nil {
		return nil, err
	}
	seats, err := roomSeats(args.RoomID)
	if err != nil {
		return nil, err
	}
	start, err := parseHour("start_at", args.StartAt)
	if err != nil {
		return nil, err
	}
	end, err := parseHour("end_at", args.EndAt)
	if err != nil {
		return nil, err
	}
	if err := checkBookable(start, end); err != nil {
		return nil, err
	}
	var attendees []string
	for _, email := range args.AttendeeEmails {
		row, err := sdk.QueryRow("SELECT id FROM members WHERE lower(email) = lower(?)", strings.TrimSpace(email))
		if errors.Is(err, sdk.ErrNoRows) {
			return nil, fmt.Errorf("attendee %q is not a library member", email)
		}
		if err != nil {
			return nil, err
		}
		id := row.String("id")
		if id == args.MemberID {
			return nil, errors.New("the booking member is not listed as their own attendee")
		}
		for _, a := range attendees {
			if a == id {
				return nil, fmt.Errorf("attendee %q is listed twice", email)
			}
		}
		attendees = append(attendees, id)
	}
	if seats >= groupRoomSeats && len(attendees) < minAttendees {
		return nil, fmt.Errorf("room %s is a group room (%d seats): it needs the booker plus at least %d attendees who are members", args.RoomID, seats, minAttendees)
	}
	taken, err := roomTaken(args.RoomID, start, end, "")
	if err != nil {
		return nil, err
	}
	if taken {
		return nil, fmt.Errorf("room %s is already booked for part of %s-%s", args.RoomID, args.StartAt, args.EndAt)
	}
	if err := checkDailyLimit(args.MemberID, start, end, ""); err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM bookings")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("bk-%d", 3001+n.Int("n"))
	if _, err := sdk.Exec("INSERT INTO bookings (id, room_id, member_id, start_at, end_at, status) VALUES (?, ?, ?, ?, ?, 'booked')",
		id, args.RoomID, args.MemberID, start.Format(time.RFC3339), end.Format(time.RFC3339)); err != nil {
		return nil, err
	}
	for _, a := range attendees {
		if _, err := sdk.Exec("INSERT INTO booking_attendees (booking_id, member_id) VALUES (?, ?)", id, a); err != nil {
			return nil, err
		}
	}
	out := bookingResult(id, args.RoomID, start, end, "booked")
	out["attendees"] = len(attendees)
	return out, nil
}

// ExtendBookingArgs are extend_booking's arguments.
type ExtendBookingArgs struct {
	// the member's id
	MemberID string `json:"member_id"`
	// booking id
	BookingID string `json:"booking_id"`
	// hours to add (1 or more)
	Hours int `json:"hours"`
}

// ExtendBooking adds whole hours at the end of a booking.
func ExtendBooking(args ExtendBookingArgs) (map[string]any, error) {
	if err := checkNotSuspended(args.MemberID); err != nil {
		return nil, err
	}
	if args.Hours < 1 {
		return nil, errors.New("hours must be 1 or more")
	}
	row, start, end, err := loadBooking(args.MemberID, args.BookingID)
	if err != nil {
		return nil, err
	}
	newEnd := end.Add(time.Duration(args.Hours) * time.Hour)
	if err := checkPeriod(start, newEnd); err != nil {
		return nil, err
	}
	if newEnd.Sub(start) > maxBookingHrs*time.Hour {
		return nil, fmt.Errorf("booking %s would last %.0f hours; a booking may last at most %d", args.BookingID, newEnd.Sub(start).Hours(), maxBookingHrs)
	}
	taken, err := roomTaken(row.String("room_id"), end, newEnd, args.BookingID)
	if err != nil {
		return nil, err
	}
	if taken {
		return nil, fmt.Errorf("room %s is booked by someone else between %s and %s", row.String("room_id"), end.Format(time.RFC3339), newEnd.Format(time.RFC3339))
	}
	if err := checkDailyLimit(args.MemberID, start, newEnd, args.BookingID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET end_at = ? WHERE id = ?", newEnd.Format(time.RFC3339), args.BookingID); err != nil {
		return nil, err
	}
	return bookingResult(args.BookingID, row.String("room_id"), start, newEnd, "booked"), nil
}

// MoveBookingArgs are move_booking's arguments.
type MoveBookingArgs struct {
	// the member's id
	MemberID string `json:"member_id"`
	// booking id
	BookingID string `json:"booking_id"`
	// the room to move to (may be the same room)
	RoomID string `json:"room_id"`
	// new start, ISO-8601 UTC
	StartAt string `json:"start_at,omitempty"`
	// new end, ISO-8601 UTC
	EndAt string `json:"end_at,omitempty"`
}

// MoveBooking moves a booking to another room and/or other hours.
func MoveBooking(args MoveBookingArgs) (map[string]any, error) {
	if err := checkNotSuspended(args.MemberID); err != nil {
		return nil, err
	}
	_, start, end, err := loadBooking(args.MemberID, args.BookingID)
	if err != nil {
		return nil, err
	}
	seats, err := roomSeats(args.RoomID)
	if err != nil {
		return nil, err
	}
	if args.StartAt != "" {
		if start, err = parseHour("start_at", args.StartAt); err != nil {
			return nil, err
		}
	}
	if args.EndAt != "" {
		if end, err = parseHour("end_at", args.EndAt); err != nil {
			return nil, err
		}
	}
	if err := checkBookable(start, end); err != nil {
		return nil, err
	}
	if seats >= groupRoomSeats {
		n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM booking_attendees WHERE booking_id = ?", args.BookingID)
		if err != nil {
			return nil, err
		}
		if n.Int("n") < minAttendees {
			return nil, fmt.Errorf("room %s is a group room (%d seats): the booking has %d attendees, it needs at least %d", args.RoomID, seats, n.Int("n"), minAttendees)
		}
	}
	taken, err := roomTaken(args.RoomID, start, end, args.BookingID)
	if err != nil {
		return nil, err
	}
	if taken {
		return nil, fmt.Errorf("room %s is already booked for part of %s-%s", args.RoomID, start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	if err := checkDailyLimit(args.MemberID, start, end, args.BookingID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET room_id = ?, start_at = ?, end_at = ? WHERE id = ?", args.RoomID, start.Format(time.RFC3339), end.Format(time.RFC3339), args.BookingID); err != nil {
		return nil, err
	}
	return bookingResult(args.BookingID, args.RoomID, start, end, "booked"), nil
}

// CancelBookingArgs are cancel_booking's arguments.
type CancelBookingArgs struct {
	// the member's id
	MemberID string `json:"member_id"`
	// booking id
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels a booking; a late cancellation is a no-show.
func CancelBooking(args CancelBookingArgs) (map[string]any, error) {
	row, start, end, err := loadBooking(args.MemberID, args.BookingID)
	if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC()
	if !start.After(now) {
		return nil, fmt.Errorf("booking %s has already started", args.BookingID)
	}
	stamp := now.Format(time.RFC3339)
	if start.Sub(now) >= 2*time.Hour {
		if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ?", stamp, args.BookingID); err != nil {
			return nil, err
		}
		out := bookingResult(args.BookingID, row.String("room_id"), start, end, "cancelled")
		out["no_show"] = false
		return out, nil
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'no_show', cancelled_at = ? WHERE id = ?", stamp, args.BookingID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO no_shows (member_id, booking_id, recorded_at) VALUES (?, ?, ?)", args.MemberID, args.BookingID, stamp); err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM no_shows WHERE member_id = ? AND recorded_at >= ?", args.MemberID, now.Add(-30*24*time.Hour).Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	out := bookingResult(args.BookingID, row.String("room_id"), start, end, "no_show")
	out["no_show"] = true
	if n.Int("n") >= 3 {
		until := now.Add(14 * 24 * time.Hour).Format("2006-01-02")
		if _, err := sdk.Exec("UPDATE members SET suspended_until = ? WHERE id = ?", until, args.MemberID); err != nil {
			return nil, err
		}
		out["suspended_until"] = until
	}
	return out, nil
}
