package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// FindPassengerArgs are the arguments of find_passenger.
type FindPassengerArgs struct {
	// The passenger's email address.
	Email string `json:"email"`
}

// FindPassenger finds a passenger by email.
func FindPassenger(args FindPassengerArgs) (sdk.Row, error) {
	p, err := sdk.QueryRow(`SELECT id, name, email FROM passengers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no passenger has the email %s", args.Email)
	}
	return p, err
}

// ListBookingsArgs are the arguments of list_bookings.
type ListBookingsArgs struct {
	// The passenger's id from find_passenger.
	PassengerID string `json:"passenger_id"`
}

// ListBookings lists the passenger's bookings with their flight, fare and seat.
func ListBookings(args ListBookingsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM passengers WHERE id = ?`, args.PassengerID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no passenger has the id %s", args.PassengerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id, b.flight_id, f.origin, f.destination, f.departs_at, b.fare_code, c.change_fee, c.bag_limit, c.refundable, b.bags,
		(SELECT s.seat FROM seats s WHERE s.booking_id = b.id) AS seat, b.amount_paid, b.status
		FROM bookings b JOIN flights f ON f.id = b.flight_id JOIN fare_classes c ON c.code = b.fare_code WHERE b.passenger_id = ? ORDER BY f.departs_at`, args.PassengerID)
}

// ownBooking reads a booking of the passenger with its fare and flight.
func ownBooking(passengerID, bookingID string) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.id, b.passenger_id, b.flight_id, b.fare_code, b.bags, b.amount_paid, b.status, c.change_fee, c.bag_limit, c.refundable,
		f.origin, f.destination, f.price FROM bookings b JOIN fare_classes c ON c.code = b.fare_code JOIN flights f ON f.id = b.flight_id WHERE upper(b.id) = upper(?)`, strings.TrimSpace(bookingID))
	if err == sdk.ErrNoRows || (err == nil && b.String("passenger_id") != passengerID) {
		return sdk.Row{}, fmt.Errorf("the passenger has no booking %s", bookingID)
	}
	if err == nil && b.String("status") != "confirmed" {
		return sdk.Row{}, fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	return b, err
}

func bookingView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT b.id, b.flight_id, f.departs_at, b.fare_code, b.bags, (SELECT s.seat FROM seats s WHERE s.booking_id = b.id) AS seat, b.amount_paid, b.status, b.refund
		FROM bookings b JOIN flights f ON f.id = b.flight_id WHERE b.id = ?`, id)
}

// SearchFlightsArgs are the arguments of search_flights.
type SearchFlightsArgs struct {
	// Origin airport code, such as LHR.
	Origin string `json:"origin"`
	// Destination airport code, such as MAD.
	Destination string `json:"destination"`
	// Only flights on this date, YYYY-MM-DD.
	Date string `json:"date,omitempty"`
}

// SearchFlights lists the flights of a route.
func SearchFlights(args SearchFlightsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT f.id, f.departs_at, f.price, (SELECT count(*) FROM seats s WHERE s.flight_id = f.id AND s.booking_id IS NULL) AS free_seats
		FROM flights f WHERE f.origin = upper(?) AND f.destination = upper(?) AND (? = '' OR substr(f.departs_at, 1, 10) = ?) ORDER BY f.departs_at`,
		strings.TrimSpace(args.Origin), strings.TrimSpace(args.Destination), strings.TrimSpace(args.Date), strings.TrimSpace(args.Date))
}

// ChangeFlightArgs are the arguments of change_flight.
type ChangeFlightArgs struct {
	// The passenger's id.
	PassengerID string `json:"passenger_id"`
	// The booking's id.
	BookingID string `json:"booking_id"`
	// The new flight's id from search_flights.
	FlightID string `json:"flight_id"`
}

// ChangeFlight moves a booking to another flight of the same route.
func ChangeFlight(args ChangeFlightArgs) (sdk.Row, error) {
	b, err := ownBooking(args.PassengerID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	f, err := sdk.QueryRow(`SELECT id, origin, destination, departs_at, price FROM flights WHERE upper(id) = upper(?)`, strings.TrimSpace(args.FlightID))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no flight has the id %s", args.FlightID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	switch {
	case f.String("id") == b.String("flight_id"):
		return sdk.Row{}, fmt.Errorf("the booking is already on flight %s", f.String("id"))
	case f.String("origin") != b.String("origin") || f.String("destination") != b.String("destination"):
		return sdk.Row{}, fmt.Errorf("flight %s flies %s-%s, not the booking's route %s-%s", f.String("id"), f.String("origin"), f.String("destination"), b.String("origin"), b.String("destination"))
	case f.String("departs_at") <= sdk.Now().UTC().Format(time.RFC3339):
		return sdk.Row{}, fmt.Errorf("flight %s has already departed", f.String("id"))
	}
	charge := b.Float("change_fee") + math.Max(0, f.Float("price")-b.Float("price"))
	if _, err := sdk.Exec(`UPDATE seats SET booking_id = NULL WHERE booking_id = ?`, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET flight_id = ?, amount_paid = ? WHERE id = ?`, f.String("id"), round2(b.Float("amount_paid")+charge), b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(b.String("id"))
}
