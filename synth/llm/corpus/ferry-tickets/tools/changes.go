package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// sailingAt finds a route's sailing at a date and time that has not left.
func sailingAt(route, date, hhmm string) (sdk.Row, error) {
	at := strings.TrimSpace(date) + "T" + strings.TrimSpace(hhmm) + ":00Z"
	s, err := sdk.QueryRow(`SELECT id, departs_at, passenger_capacity - passengers_booked AS pax_left, car_capacity - cars_booked AS cars_left, cabins_total - cabins_booked AS cabins_left
		FROM sailings WHERE route_id = ? AND departs_at = ?`, route, at)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("there is no sailing on that route on %s at %s", date, hhmm)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("departs_at") <= sdk.Now().UTC().Format(stamp) {
		return sdk.Row{}, fmt.Errorf("that sailing has already left")
	}
	return s, nil
}

// room checks a sailing has space for passengers, a vehicle and a cabin.
func room(s sdk.Row, pax int64, car, cabin bool) error {
	if s.Int("pax_left") < pax {
		return fmt.Errorf("the sailing has only %d passenger places left", s.Int("pax_left"))
	}
	if car && s.Int("cars_left") < 1 {
		return fmt.Errorf("the sailing has no car space left")
	}
	if cabin && s.Int("cabins_left") < 1 {
		return fmt.Errorf("the sailing has no cabin left")
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// take adds (or, with sign -1, frees) a booking's places on a sailing.
func take(sailing string, sign int, pax int64, car, cabin bool) error {
	_, err := sdk.Exec(`UPDATE sailings SET passengers_booked = passengers_booked + ?, cars_booked = cars_booked + ?, cabins_booked = cabins_booked + ? WHERE id = ?`,
		int64(sign)*pax, sign*b2i(car), sign*b2i(cabin), sailing)
	return err
}

func hasCar(b sdk.Row) bool { return !b.IsNull("vehicle_reg") && b.String("vehicle_reg") != "" }

// BookTripArgs are the arguments of book_trip.
type BookTripArgs struct {
	// The customer id verify_booking returned.
	CustomerID string `json:"customer_id"`
	// Departure port.
	Origin string `json:"origin"`
	// Arrival port.
	Destination string `json:"destination"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Departure time HH:MM.
	Time string `json:"time"`
	// Number of passengers.
	Passengers int `json:"passengers"`
	// Vehicle registration, if a vehicle travels.
	VehicleReg string `json:"vehicle_reg,omitempty"`
	// true to book a cabin.
	Cabin bool `json:"cabin,omitempty"`
}

// BookTrip books a new trip for the customer.
func BookTrip(args BookTripArgs) (map[string]any, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return nil, err
	}
	if args.Passengers < 1 {
		return nil, fmt.Errorf("a trip needs at least one passenger")
	}
	route, err := routeID(args.Origin, args.Destination)
	if err != nil {
		return nil, err
	}
	s, err := sailingAt(route, args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	reg := strings.ToUpper(strings.TrimSpace(args.VehicleReg))
	if err := room(s, int64(args.Passengers), reg != "", args.Cabin); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT id FROM bookings WHERE id LIKE 'FB-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "FB-")); err == nil && n > max {
			max = n
		}
	}
	id := fmt.Sprintf("FB-%d", max+1)
	var vehicle any
	if reg != "" {
		vehicle = reg
	}
	if _, err := sdk.Exec(`INSERT INTO bookings (id, customer_id, sailing_id, passengers, vehicle_reg, cabin, change_fees, status, refund, created_at) VALUES (?, ?, ?, ?, ?, ?, 0, 'booked', 0, ?)`,
		id, args.CustomerID, s.String("id"), args.Passengers, vehicle, b2i(args.Cabin), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if err := take(s.String("id"), 1, int64(args.Passengers), reg != "", args.Cabin); err != nil {
		return nil, err
	}
	return GetBooking(BookingArgs{CustomerID: args.CustomerID, BookingID: id})
}

func bookedBooking(customerID, id string) (sdk.Row, error) {
	b, err := customerBooking(customerID, id)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	return b, nil
}

// ChangeSailingArgs are the arguments of change_sailing.
type ChangeSailingArgs struct {
	// The customer id verify_booking returned.
	CustomerID string `json:"customer_id"`
	// Booking reference.
	BookingID string `json:"booking_id"`
	// Date YYYY-MM-DD of the new sailing.
	Date string `json:"date"`
	// Departure time HH:MM of the new sailing.
	Time string `json:"time"`
}

// ChangeSailing moves a booking to another sailing of its route for 15.00.
func ChangeSailing(args ChangeSailingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.CustomerID, args.BookingID)
	if err != nil {
		return nil, err
	}
	s, err := sailingAt(b.String("route_id"), args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if s.String("id") == b.String("sailing_id") {
		return nil, fmt.Errorf("booking %s is already on that sailing", b.String("id"))
	}
	car, cabin := hasCar(b), b.Int("cabin") == 1
	if err := room(s, b.Int("passengers"), car, cabin); err != nil {
		return nil, err
	}
	if err := take(b.String("sailing_id"), -1, b.Int("passengers"), car, cabin); err != nil {
		return nil, err
	}
	if err := take(s.String("id"), 1, b.Int("passengers"), car, cabin); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET sailing_id = ?, change_fees = change_fees + 15 WHERE id = ?`, s.String("id"), b.String("id")); err != nil {
		return nil, err
	}
	return GetBooking(BookingArgs{CustomerID: args.CustomerID, BookingID: b.String("id")})
}

// AddVehicleArgs are the arguments of add_vehicle.
type AddVehicleArgs struct {
	// The customer id verify_booking returned.
	CustomerID string `json:"customer_id"`
	// Booking reference.
	BookingID string `json:"booking_id"`
	// The vehicle's registration.
	VehicleReg string `json:"vehicle_reg"`
}

// AddVehicle adds a vehicle to a booking when the sailing has car space.
func AddVehicle(args AddVehicleArgs) (map[string]any, error) {
	b, err := bookedBooking(args.CustomerID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if hasCar(b) {
		return nil, fmt.Errorf("booking %s already has a vehicle (%s)", b.String("id"), b.String("vehicle_reg"))
	}
	reg := strings.ToUpper(strings.TrimSpace(args.VehicleReg))
	if reg == "" {
		return nil, fmt.Errorf("give the vehicle's registration")
	}
	s, err := sdk.QueryRow(`SELECT id, 0 AS pax_left, car_capacity - cars_booked AS cars_left, 0 AS cabins_left FROM sailings WHERE id = ?`, b.String("sailing_id"))
	if err != nil {
		return nil, err
	}
	if err := room(s, 0, true, false); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET vehicle_reg = ? WHERE id = ?`, reg, b.String("id")); err != nil {
		return nil, err
	}
	if err := take(b.String("sailing_id"), 1, 0, true, false); err != nil {
		return nil, err
	}
	return GetBooking(BookingArgs{CustomerID: args.CustomerID, BookingID: b.String("id")})
}

// AddCabin adds a cabin to a booking when the sailing has one left.
func AddCabin(args BookingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.CustomerID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if b.Int("cabin") == 1 {
		return nil, fmt.Errorf("booking %s already has a cabin", b.String("id"))
	}
	s, err := sdk.QueryRow(`SELECT id, 0 AS pax_left, 0 AS cars_left, cabins_total - cabins_booked AS cabins_left FROM sailings WHERE id = ?`, b.String("sailing_id"))
	if err != nil {
		return nil, err
	}
	if err := room(s, 0, false, true); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET cabin = 1 WHERE id = ?`, b.String("id")); err != nil {
		return nil, err
	}
	if err := take(b.String("sailing_id"), 1, 0, false, true); err != nil {
		return nil, err
	}
	return GetBooking(BookingArgs{CustomerID: args.CustomerID, BookingID: b.String("id")})
}

// CancelBooking cancels a booking with a refund that depends on notice.
func CancelBooking(args BookingArgs) (map[string]any, error) {
	b, err := bookedBooking(args.CustomerID, args.BookingID)
	if err != nil {
		return nil, err
	}
	dep, err := time.Parse(time.RFC3339, b.String("departs_at"))
	if err != nil {
		return nil, err
	}
	ahead := dep.Sub(sdk.Now())
	rate := 0.0
	switch {
	case ahead >= 7*24*time.Hour:
		rate = 1
	case ahead >= 48*time.Hour:
		rate = 0.5
	}
	refund := math.Round(price(b)*rate*100) / 100
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', refund = ? WHERE id = ?`, refund, b.String("id")); err != nil {
		return nil, err
	}
	if err := take(b.String("sailing_id"), -1, b.Int("passengers"), hasCar(b), b.Int("cabin") == 1); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "status": "cancelled", "refund": refund}, nil
}
