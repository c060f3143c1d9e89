package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookBerthArgs describe a stay.
type BookBerthArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
	// The boat's name.
	BoatName string `json:"boat_name"`
	// The pontoon's name, such as Pontoon B.
	PontoonName string `json:"pontoon_name"`
	// Arrival date (YYYY-MM-DD).
	Arrival string `json:"arrival"`
	// Departure date (YYYY-MM-DD).
	Departure string `json:"departure"`
}

// BookBerth books the smallest free fitting berth on a pontoon.
func BookBerth(args BookBerthArgs) (map[string]any, error) {
	if err := memberExists(args.MembershipNo); err != nil {
		return nil, err
	}
	boat, err := boatByName(args.MembershipNo, args.BoatName)
	if err != nil {
		return nil, err
	}
	n, err := nights(args.Arrival, args.Departure)
	if err != nil {
		return nil, err
	}
	if args.Arrival < sdk.Now().UTC().Format("2006-01-02") {
		return nil, fmt.Errorf("arrival %s is in the past", args.Arrival)
	}
	p, err := sdk.QueryRow(`SELECT id, name FROM pontoons WHERE lower(name) = lower(?)`, strings.TrimSpace(args.PontoonName))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no pontoon named %q", args.PontoonName)
	}
	if err != nil {
		return nil, err
	}
	berth, err := sdk.QueryRow(`SELECT be.id, be.nightly_rate FROM berths be WHERE be.pontoon_id = ? AND be.max_length_m >= ? AND `+berthFree+`
		ORDER BY be.max_length_m, be.id LIMIT 1`, p.String("id"), boat.Float("length_m"), "", args.Departure, args.Arrival)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no berth on %s that fits %s (%.1f m) is free from %s to %s", p.String("name"), boat.String("name"), boat.Float("length_m"), args.Arrival, args.Departure)
	}
	if err != nil {
		return nil, err
	}
	last, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 300) AS n FROM bookings`)
	if err != nil {
		return nil, err
	}
	id := "MB-" + strconv.FormatInt(last.Int("n")+1, 10)
	cost := cents(float64(n) * berth.Float("nightly_rate"))
	if _, err := sdk.Exec(`INSERT INTO bookings (id, boat_id, berth_id, arrival, departure, status, berth_cost, refund, created_at) VALUES (?, ?, ?, ?, ?, 'active', ?, 0, ?)`,
		id, boat.String("id"), berth.String("id"), args.Arrival, args.Departure, cost, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	k, err := ownBooking(args.MembershipNo, id)
	if err != nil {
		return nil, err
	}
	return bookingView(k), nil
}

// berthFree is the SQL condition that berth be has no other active booking
// overlapping the stay; its parameters: the booking to ignore, departure, arrival.
const berthFree = `NOT EXISTS (SELECT 1 FROM bookings o WHERE o.berth_id = be.id AND o.status = 'active' AND o.id <> ? AND o.arrival < ? AND o.departure > ?)`

// ChangeDatesArgs describe new dates.
type ChangeDatesArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
	// The booking id.
	BookingID string `json:"booking_id"`
	// New arrival date (YYYY-MM-DD); default unchanged.
	Arrival *string `json:"arrival,omitempty"`
	// New departure date (YYYY-MM-DD); default unchanged.
	Departure *string `json:"departure,omitempty"`
}

// ChangeDates extends or shortens a stay while the berth is free.
func ChangeDates(args ChangeDatesArgs) (map[string]any, error) {
	k, err := activeBooking(args.MembershipNo, args.BookingID)
	if err != nil {
		return nil, err
	}
	arrival, departure := k.String("arrival"), k.String("departure")
	if args.Arrival != nil && *args.Arrival != "" {
		arrival = strings.TrimSpace(*args.Arrival)
	}
	if args.Departure != nil && *args.Departure != "" {
		departure = strings.TrimSpace(*args.Departure)
	}
	n, err := nights(arrival, departure)
	if err != nil {
		return nil, err
	}
	if err := berthFreeFor(k.String("berth_id"), k.String("id"), arrival, departure); err != nil {
		return nil, err
	}
	cost := cents(float64(n) * k.Float("nightly_rate"))
	if _, err := sdk.Exec(`UPDATE bookings SET arrival = ?, departure = ?, berth_cost = ? WHERE id = ?`, arrival, departure, cost, k.String("id")); err != nil {
		return nil, err
	}
	nk, err := ownBooking(args.MembershipNo, k.String("id"))
	if err != nil {
		return nil, err
	}
	return bookingView(nk), nil
}

// MoveBookingArgs name a booking and its new berth.
type MoveBookingArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
	// The booking id.
	BookingID string `json:"booking_id"`
	// The new berth, such as B-07.
	BerthID string `json:"berth_id"`
}

// MoveBooking moves a booking to another free berth that fits the boat.
func MoveBooking(args MoveBookingArgs) (map[string]any, error) {
	k, err := activeBooking(args.MembershipNo, args.BookingID)
	if err != nil {
		return nil, err
	}
	be, err := sdk.QueryRow(`SELECT id, max_length_m, nightly_rate FROM berths WHERE id = ?`, strings.ToUpper(strings.TrimSpace(args.BerthID)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no berth %q", args.BerthID)
	}
	if err != nil {
		return nil, err
	}
	if be.String("id") == k.String("berth_id") {
		return nil, fmt.Errorf("booking %s is already on berth %s", k.String("id"), be.String("id"))
	}
	if be.Float("max_length_m") < k.Float("length_m") {
		return nil, fmt.Errorf("berth %s takes boats up to %.1f m; %s is %.1f m", be.String("id"), be.Float("max_length_m"), k.String("boat"), k.Float("length_m"))
	}
	if err := berthFreeFor(be.String("id"), k.String("id"), k.String("arrival"), k.String("departure")); err != nil {
		return nil, err
	}
	n, err := nights(k.String("arrival"), k.String("departure"))
	if err != nil {
		return nil, err
	}
	cost := cents(float64(n) * be.Float("nightly_rate"))
	if _, err := sdk.Exec(`UPDATE bookings SET berth_id = ?, berth_cost = ? WHERE id = ?`, be.String("id"), cost, k.String("id")); err != nil {
		return nil, err
	}
	nk, err := ownBooking(args.MembershipNo, k.String("id"))
	if err != nil {
		return nil, err
	}
	return bookingView(nk), nil
}

// CancelBooking cancels a booking, refunding it more than 48 hours before arrival.
func CancelBooking(args BookingArgs) (map[string]any, error) {
	k, err := activeBooking(args.MembershipNo, args.BookingID)
	if err != nil {
		return nil, err
	}
	arrival, err := time.Parse("2006-01-02", k.String("arrival"))
	if err != nil {
		return nil, err
	}
	refund := 0.0
	if arrival.Sub(sdk.Now()) > 48*time.Hour {
		refund = k.Float("berth_cost")
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', refund = ? WHERE id = ?`, refund, k.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": k.String("id"), "status": "cancelled", "arrival": k.String("arrival"), "berth_cost": k.Float("berth_cost"), "refund": refund}, nil
}

// OrderServiceArgs describe a service order.
type OrderServiceArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
	// The booking id.
	BookingID string `json:"booking_id"`
	// fuel or shore_power.
	Service string `json:"service"`
	// Litres of fuel (fuel only).
	Litres *float64 `json:"litres,omitempty"`
}

// OrderService orders fuel or shore power for a booking.
func OrderService(args OrderServiceArgs) (map[string]any, error) {
	k, err := activeBooking(args.MembershipNo, args.BookingID)
	if err != nil {
		return nil, err
	}
	var qty, amount float64
	switch strings.ToLower(strings.TrimSpace(args.Service)) {
	case "fuel":
		if args.Litres == nil || *args.Litres <= 0 {
			return nil, fmt.Errorf("fuel needs a positive number of litres")
		}
		qty, amount = *args.Litres, cents(*args.Litres*fuelPerLitre)
	case "shore_power", "shore power":
		n, err := nights(k.String("arrival"), k.String("departure"))
		if err != nil {
			return nil, err
		}
		qty, amount = float64(n), cents(float64(n)*shorePowerPerNight)
		args.Service = "shore_power"
	default:
		return nil, fmt.Errorf("service must be fuel or shore_power, not %q", args.Service)
	}
	service := strings.ToLower(strings.TrimSpace(args.Service))
	res, err := sdk.Exec(`INSERT INTO service_orders (booking_id, service, quantity, amount, ordered_at) VALUES (?, ?, ?, ?, ?)`,
		k.String("id"), service, qty, amount, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return map[string]any{"order_id": res.LastInsertID, "booking_id": k.String("id"), "service": service, "quantity": qty, "amount": amount}, nil
}

func berthFreeFor(berth, ignore, arrival, departure string) error {
	_, err := sdk.QueryRow(`SELECT be.id FROM berths be WHERE be.id = ? AND `+berthFree, berth, ignore, departure, arrival)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("berth %s is not free from %s to %s", berth, arrival, departure)
	}
	return err
}
