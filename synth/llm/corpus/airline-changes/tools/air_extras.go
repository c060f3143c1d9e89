package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListFreeSeatsArgs are the arguments of list_free_seats.
type ListFreeSeatsArgs struct {
	// The flight's id.
	FlightID string `json:"flight_id"`
}

// ListFreeSeats lists the free seats of a flight.
func ListFreeSeats(args ListFreeSeatsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM flights WHERE upper(id) = upper(?)`, strings.TrimSpace(args.FlightID)); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no flight has the id %s", args.FlightID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT seat FROM seats WHERE flight_id = upper(?) AND booking_id IS NULL ORDER BY seat`, strings.TrimSpace(args.FlightID))
}

// AssignSeatArgs are the arguments of assign_seat.
type AssignSeatArgs struct {
	// The passenger's id.
	PassengerID string `json:"passenger_id"`
	// The booking's id.
	BookingID string `json:"booking_id"`
	// The seat, such as 14A.
	Seat string `json:"seat"`
}

// AssignSeat gives a booking a free seat on its flight.
func AssignSeat(args AssignSeatArgs) (sdk.Row, error) {
	b, err := ownBooking(args.PassengerID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	seat := strings.ToUpper(strings.TrimSpace(args.Seat))
	s, err := sdk.QueryRow(`SELECT seat, COALESCE(booking_id, '') AS booking_id FROM seats WHERE flight_id = ? AND seat = ?`, b.String("flight_id"), seat)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("flight %s has no seat %s", b.String("flight_id"), seat)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if s.String("booking_id") != "" {
		return sdk.Row{}, fmt.Errorf("seat %s is taken", seat)
	}
	if _, err := sdk.Exec(`UPDATE seats SET booking_id = NULL WHERE booking_id = ?`, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE seats SET booking_id = ? WHERE flight_id = ? AND seat = ?`, b.String("id"), b.String("flight_id"), seat); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(b.String("id"))
}

// AddBagsArgs are the arguments of add_bags.
type AddBagsArgs struct {
	// The passenger's id.
	PassengerID string `json:"passenger_id"`
	// The booking's id.
	BookingID string `json:"booking_id"`
	// How many bags to add.
	Count int `json:"count"`
}

// AddBags adds checked bags within the fare class's limit.
func AddBags(args AddBagsArgs) (sdk.Row, error) {
	b, err := ownBooking(args.PassengerID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.Count < 1 {
		return sdk.Row{}, fmt.Errorf("add at least one bag")
	}
	if b.Int("bags")+int64(args.Count) > b.Int("bag_limit") {
		return sdk.Row{}, fmt.Errorf("the %s fare allows %d checked bags and the booking has %d", b.String("fare_code"), b.Int("bag_limit"), b.Int("bags"))
	}
	if _, err := sdk.Exec(`UPDATE bookings SET bags = bags + ? WHERE id = ?`, args.Count, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(b.String("id"))
}

// CancelBookingArgs are the arguments of cancel_booking.
type CancelBookingArgs struct {
	// The passenger's id.
	PassengerID string `json:"passenger_id"`
	// The booking's id.
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels a refundable booking and refunds what was paid.
func CancelBooking(args CancelBookingArgs) (sdk.Row, error) {
	b, err := ownBooking(args.PassengerID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.Int("refundable") != 1 {
		return sdk.Row{}, fmt.Errorf("the %s fare is not refundable", b.String("fare_code"))
	}
	if _, err := sdk.Exec(`UPDATE seats SET booking_id = NULL WHERE booking_id = ?`, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', refund = amount_paid WHERE id = ?`, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(b.String("id"))
}
