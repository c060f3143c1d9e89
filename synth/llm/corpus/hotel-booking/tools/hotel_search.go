package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindGuestArgs are the arguments of find_guest.
type FindGuestArgs struct {
	// The guest's email address.
	Email string `json:"email"`
}

// FindGuest finds a guest by email and returns id, name and email.
func FindGuest(args FindGuestArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM guests WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no guest has the email %s", args.Email)
	}
	return row, err
}

// stayNights parses a stay's dates and returns its nights.
func stayNights(checkIn, checkOut string) (int, error) {
	in, err := time.Parse("2006-01-02", strings.TrimSpace(checkIn))
	if err != nil {
		return 0, fmt.Errorf("check_in %q is not a date YYYY-MM-DD", checkIn)
	}
	out, err := time.Parse("2006-01-02", strings.TrimSpace(checkOut))
	if err != nil {
		return 0, fmt.Errorf("check_out %q is not a date YYYY-MM-DD", checkOut)
	}
	nights := int(out.Sub(in).Hours() / 24)
	if nights < 1 {
		return 0, fmt.Errorf("check_out must be after check_in")
	}
	return nights, nil
}

// SearchRoomsArgs are the arguments of search_rooms.
type SearchRoomsArgs struct {
	// The city, such as Lisbon.
	City string `json:"city"`
	// Arrival date, YYYY-MM-DD.
	CheckIn string `json:"check_in"`
	// Departure date, YYYY-MM-DD.
	CheckOut string `json:"check_out"`
	// single, double or suite.
	Type string `json:"type,omitempty"`
}

// SearchRooms lists the rooms of a city free for every night of a stay,
// cheapest first, with the stay's total.
func SearchRooms(args SearchRoomsArgs) (sdk.Rows, error) {
	nights, err := stayNights(args.CheckIn, args.CheckOut)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS room_id, h.name AS hotel, h.city, r.number, r.type, r.nightly_rate,
			round(r.nightly_rate * ?, 2) AS stay_total, h.breakfast_price
		FROM rooms r JOIN hotels h ON h.id = r.hotel_id
		WHERE lower(h.city) = lower(?) AND (? = '' OR r.type = lower(?))
		  AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.room_id = r.id AND b.status = 'booked' AND b.check_in < ? AND b.check_out > ?)
		ORDER BY r.nightly_rate, h.name, r.number`,
		nights, strings.TrimSpace(args.City), args.Type, args.Type, args.CheckOut, args.CheckIn)
}

// ListBookingsArgs are the arguments of list_bookings.
type ListBookingsArgs struct {
	// The guest's id from find_guest.
	GuestID string `json:"guest_id"`
}

// ListBookings lists the guest's bookings, earliest first.
func ListBookings(args ListBookingsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM guests WHERE id = ?`, args.GuestID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no guest has the id %s", args.GuestID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, h.name AS hotel, h.city, r.number AS room, r.type, b.check_in, b.check_out,
			CAST(julianday(b.check_out) - julianday(b.check_in) AS INTEGER) AS nights, b.status, b.breakfast = 1 AS breakfast, b.total
		FROM bookings b JOIN rooms r ON r.id = b.room_id JOIN hotels h ON h.id = r.hotel_id
		WHERE b.guest_id = ? ORDER BY b.check_in`, args.GuestID)
}
