package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListSlotsArgs are the arguments of list_slots.
type ListSlotsArgs struct {
	// oil, full, mot or tyre.
	ServiceCode string `json:"service_code"`
	// The date, YYYY-MM-DD.
	Date string `json:"date"`
}

// ListSlots lists a service's slots on a date with their free bays.
func ListSlots(args ListSlotsArgs) (sdk.Rows, error) {
	code := strings.ToLower(strings.TrimSpace(args.ServiceCode))
	if _, err := sdk.QueryRow(`SELECT code FROM services WHERE code = ?`, code); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no service has the code %s", args.ServiceCode)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.id, s.starts_at, s.bays, s.bays - (SELECT count(*) FROM bookings b WHERE b.slot_id = s.id AND b.status <> 'cancelled') AS free_bays
		FROM slots s WHERE s.service_code = ? AND substr(s.starts_at, 1, 10) = ? ORDER BY s.starts_at`, code, strings.TrimSpace(args.Date))
}

// BookServiceArgs are the arguments of book_service.
type BookServiceArgs struct {
	// The customer's id.
	CustomerID string `json:"customer_id"`
	// The vehicle's registration.
	Registration string `json:"registration"`
	// The slot's id from list_slots.
	SlotID string `json:"slot_id"`
}

// BookService books a slot with a free bay for one of the customer's vehicles.
func BookService(args BookServiceArgs) (sdk.Row, error) {
	reg := compact(args.Registration)
	if _, err := sdk.QueryRow(`SELECT registration FROM vehicles WHERE registration = ? AND customer_id = ?`, reg, args.CustomerID); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("vehicle %s is not the customer's", args.Registration)
	} else if err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.starts_at, s.bays - (SELECT count(*) FROM bookings b WHERE b.slot_id = s.id AND b.status <> 'cancelled') AS free_bays
		FROM slots s WHERE upper(s.id) = upper(?)`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no slot has the id %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	if s.String("starts_at") <= now {
		return sdk.Row{}, fmt.Errorf("slot %s has already started", s.String("id"))
	}
	if s.Int("free_bays") < 1 {
		return sdk.Row{}, fmt.Errorf("slot %s has no free bay", s.String("id"))
	}
	if _, err := sdk.QueryRow(`SELECT b.id FROM bookings b JOIN slots sl ON sl.id = b.slot_id WHERE b.registration = ? AND sl.starts_at = ? AND b.status IN ('booked','in_progress')`, reg, s.String("starts_at")); err == nil {
		return sdk.Row{}, fmt.Errorf("vehicle %s already has a booking at %s", reg, s.String("starts_at"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO bookings (slot_id, registration, status, booked_at) VALUES (?, ?, 'booked', ?)`, s.String("id"), reg, now)
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT b.id, b.slot_id, sl.starts_at, b.registration, b.status FROM bookings b JOIN slots sl ON sl.id = b.slot_id WHERE b.id = ?`, res.LastInsertID)
}

// CancelBookingArgs are the arguments of cancel_booking.
type CancelBookingArgs struct {
	// The customer's id.
	CustomerID string `json:"customer_id"`
	// The booking's id from list_bookings.
	BookingID int `json:"booking_id"`
}

// CancelBooking cancels a booking that has not started.
func CancelBooking(args CancelBookingArgs) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.id, b.status, v.customer_id FROM bookings b JOIN vehicles v ON v.registration = b.registration WHERE b.id = ?`, args.BookingID)
	if err == sdk.ErrNoRows || (err == nil && b.String("customer_id") != args.CustomerID) {
		return sdk.Row{}, fmt.Errorf("the customer has no booking %d", args.BookingID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("booking %d is %s and cannot be cancelled", args.BookingID, b.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled' WHERE id = ?`, args.BookingID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT b.id, b.slot_id, sl.starts_at, b.registration, b.status FROM bookings b JOIN slots sl ON sl.id = b.slot_id WHERE b.id = ?`, args.BookingID)
}
