package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// Prices of the marina's services.
const (
	fuelPerLitre       = 1.80
	shorePowerPerNight = 8.00
)

// VerifyMemberArgs identify an owner.
type VerifyMemberArgs struct {
	// The membership number, such as M-1001.
	MembershipNo string `json:"membership_no"`
	// The boat's name.
	BoatName string `json:"boat_name"`
}

// VerifyMember checks a membership number against one of its boats.
func VerifyMember(args VerifyMemberArgs) (map[string]any, error) {
	o, err := sdk.QueryRow(`SELECT membership_no, name FROM owners WHERE membership_no = ?`, strings.ToUpper(strings.TrimSpace(args.MembershipNo)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no member %q", args.MembershipNo)
	}
	if err != nil {
		return nil, err
	}
	b, err := boatByName(o.String("membership_no"), args.BoatName)
	if err != nil {
		return nil, err
	}
	return map[string]any{"membership_no": o.String("membership_no"), "name": o.String("name"), "boat_id": b.String("id"), "boat": b.String("name"), "length_m": b.Float("length_m"), "verified": true}, nil
}

// MemberArgs name a member.
type MemberArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
}

// ListBookings lists a member's berth bookings and how many are active.
func ListBookings(args MemberArgs) (map[string]any, error) {
	if err := memberExists(args.MembershipNo); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT k.id AS booking_id, b.name AS boat, k.berth_id AS berth, p.name AS pontoon, k.arrival, k.departure,
		CAST(julianday(k.departure) - julianday(k.arrival) AS INTEGER) AS nights, k.status, k.berth_cost
		FROM bookings k JOIN boats b ON b.id = k.boat_id JOIN berths be ON be.id = k.berth_id JOIN pontoons p ON p.id = be.pontoon_id
		WHERE b.membership_no = ? ORDER BY k.arrival`, args.MembershipNo)
	if err != nil {
		return nil, err
	}
	active := 0
	for _, r := range rows.All() {
		if r.String("status") == "active" {
			active++
		}
	}
	return map[string]any{"bookings": rows, "active_count": active}, nil
}

// BookingArgs name one of the member's bookings.
type BookingArgs struct {
	// The verified membership number.
	MembershipNo string `json:"membership_no"`
	// The booking id, such as MB-301.
	BookingID string `json:"booking_id"`
}

// GetBooking returns a booking with its services and total cost.
func GetBooking(args BookingArgs) (map[string]any, error) {
	k, err := ownBooking(args.MembershipNo, args.BookingID)
	if err != nil {
		return nil, err
	}
	services, err := sdk.Query(`SELECT service, quantity, amount FROM service_orders WHERE booking_id = ? ORDER BY id`, k.String("id"))
	if err != nil {
		return nil, err
	}
	extra := 0.0
	for _, r := range services.All() {
		extra += r.Float("amount")
	}
	view := bookingView(k)
	view["services"] = services
	view["total_cost"] = cents(k.Float("berth_cost") + extra)
	return view, nil
}

func memberExists(no string) error {
	_, err := sdk.QueryRow(`SELECT membership_no FROM owners WHERE membership_no = ?`, no)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no member %q", no)
	}
	return err
}

func boatByName(member, name string) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT id, name, length_m FROM boats WHERE membership_no = ? AND lower(name) = lower(?)`, member, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("member %s has no boat named %q", member, name)
	}
	return b, err
}

func ownBooking(member, id string) (sdk.Row, error) {
	if err := memberExists(member); err != nil {
		return sdk.Row{}, err
	}
	k, err := sdk.QueryRow(`SELECT k.id, k.boat_id, b.name AS boat, b.length_m, k.berth_id, p.name AS pontoon, be.nightly_rate,
		k.arrival, k.departure, k.status, k.berth_cost, k.refund
		FROM bookings k JOIN boats b ON b.id = k.boat_id JOIN berths be ON be.id = k.berth_id JOIN pontoons p ON p.id = be.pontoon_id
		WHERE k.id = ? AND b.membership_no = ?`, strings.ToUpper(strings.TrimSpace(id)), member)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("member %s has no booking %q", member, id)
	}
	return k, err
}

func activeBooking(member, id string) (sdk.Row, error) {
	k, err := ownBooking(member, id)
	if err != nil {
		return sdk.Row{}, err
	}
	if k.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("booking %s is %s", k.String("id"), k.String("status"))
	}
	return k, nil
}

func bookingView(k sdk.Row) map[string]any {
	n, _ := nights(k.String("arrival"), k.String("departure"))
	return map[string]any{"booking_id": k.String("id"), "boat": k.String("boat"), "berth": k.String("berth_id"), "pontoon": k.String("pontoon"),
		"arrival": k.String("arrival"), "departure": k.String("departure"), "nights": n, "status": k.String("status"),
		"berth_cost": k.Float("berth_cost"), "refund": k.Float("refund")}
}

// nights counts the nights between two YYYY-MM-DD dates; it fails unless departure is after arrival.
func nights(arrival, departure string) (int, error) {
	a, err := time.Parse("2006-01-02", strings.TrimSpace(arrival))
	if err != nil {
		return 0, fmt.Errorf("arrival is YYYY-MM-DD, not %q", arrival)
	}
	d, err := time.Parse("2006-01-02", strings.TrimSpace(departure))
	if err != nil {
		return 0, fmt.Errorf("departure is YYYY-MM-DD, not %q", departure)
	}
	n := int(d.Sub(a).Hours() / 24)
	if n < 1 {
		return 0, fmt.Errorf("departure %s must be after arrival %s", departure, arrival)
	}
	return n, nil
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
