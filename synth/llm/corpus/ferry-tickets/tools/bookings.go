package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

// VerifyBookingArgs are the arguments of verify_booking.
type VerifyBookingArgs struct {
	// Booking reference such as FB-1001.
	BookingID string `json:"booking_id"`
	// The lead passenger's surname.
	Surname string `json:"surname"`
}

// VerifyBooking verifies a customer by booking reference and surname.
func VerifyBooking(args VerifyBookingArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT c.id AS customer_id, c.name || ' ' || c.surname AS name FROM bookings b JOIN customers c ON c.id = b.customer_id
		WHERE b.id = ? AND lower(c.surname) = ?`, strings.ToUpper(strings.TrimSpace(args.BookingID)), strings.ToLower(strings.TrimSpace(args.Surname)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the booking reference and surname do not match")
	}
	return row, err
}

func customerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM customers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no customer has the id %q", id)
	}
	return err
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// The customer id verify_booking returned.
	CustomerID string `json:"customer_id"`
}

// ListBookings lists the customer's bookings.
func ListBookings(args CustomerArgs) (sdk.Rows, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, r.origin, r.destination, s.departs_at, b.passengers, b.vehicle_reg, b.cabin, b.status
		FROM bookings b JOIN sailings s ON s.id = b.sailing_id JOIN routes r ON r.id = s.route_id WHERE b.customer_id = ? ORDER BY s.departs_at`, args.CustomerID)
}

// customerBooking is one of the customer's bookings with its sailing and fares.
func customerBooking(customerID, id string) (sdk.Row, error) {
	if err := customerExists(customerID); err != nil {
		return sdk.Row{}, err
	}
	b, err := sdk.QueryRow(`SELECT b.id, b.sailing_id, b.passengers, b.vehicle_reg, b.cabin, b.change_fees, b.status, b.refund, s.route_id, s.departs_at,
		s.passenger_fare, s.car_fare, s.cabin_fare, r.origin, r.destination FROM bookings b JOIN sailings s ON s.id = b.sailing_id JOIN routes r ON r.id = s.route_id
		WHERE b.id = ? AND b.customer_id = ?`, strings.ToUpper(strings.TrimSpace(id)), customerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("booking %q is not one of this customer's bookings", id)
	}
	return b, err
}

// price is a booking's total: fares for what it holds plus change fees.
func price(b sdk.Row) float64 {
	p := float64(b.Int("passengers"))*b.Float("passenger_fare") + b.Float("change_fees")
	if !b.IsNull("vehicle_reg") && b.String("vehicle_reg") != "" {
		p += b.Float("car_fare")
	}
	if b.Int("cabin") == 1 {
		p += b.Float("cabin_fare")
	}
	return math.Round(p*100) / 100
}

// BookingArgs name a booking.
type BookingArgs struct {
	// The customer id verify_booking returned.
	CustomerID string `json:"customer_id"`
	// Booking reference.
	BookingID string `json:"booking_id"`
}

// GetBooking returns a booking with its sailing and total.
func GetBooking(args BookingArgs) (map[string]any, error) {
	b, err := customerBooking(args.CustomerID, args.BookingID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "origin": b.String("origin"), "destination": b.String("destination"), "departs_at": b.String("departs_at"),
		"passengers": b.Int("passengers"), "vehicle_reg": b.Value("vehicle_reg"), "cabin": b.Int("cabin") == 1, "change_fees": b.Float("change_fees"),
		"status": b.String("status"), "total": price(b), "refund": b.Float("refund")}, nil
}

// FindSailingsArgs name a route and a date.
type FindSailingsArgs struct {
	// Departure port such as Portside.
	Origin string `json:"origin"`
	// Arrival port such as Isle Bay.
	Destination string `json:"destination"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

func routeID(origin, destination string) (string, error) {
	r, err := sdk.QueryRow(`SELECT id FROM routes WHERE lower(origin) = ? AND lower(destination) = ?`, strings.ToLower(strings.TrimSpace(origin)), strings.ToLower(strings.TrimSpace(destination)))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("there is no route from %s to %s", origin, destination)
	}
	if err != nil {
		return "", err
	}
	return r.String("id"), nil
}

// FindSailings lists a route's sailings on a date with places left.
func FindSailings(args FindSailingsArgs) (sdk.Rows, error) {
	id, err := routeID(args.Origin, args.Destination)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT substr(departs_at, 12, 5) AS time, passenger_capacity - passengers_booked AS passenger_places, car_capacity - cars_booked AS car_spaces,
		cabins_total - cabins_booked AS cabins, passenger_fare, car_fare, cabin_fare FROM sailings WHERE route_id = ? AND substr(departs_at, 1, 10) = ? ORDER BY departs_at`,
		id, strings.TrimSpace(args.Date))
}
