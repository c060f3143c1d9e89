package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindCamperArgs struct {
	// Camper's email
	Email string `json:"email"`
}

// FindCamper finds a camper by email.
func FindCamper(args FindCamperArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT id AS camper_id, name, email FROM campers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no camper has the email %s", args.Email)
	}
	return c, err
}

type CamperArgs struct {
	// Camper id from find_camper
	CamperID string `json:"camper_id"`
}

// ListReservations lists a camper's reservations with their extras and totals.
func ListReservations(args CamperArgs) (sdk.Rows, error) {
	if err := requireCamper(args.CamperID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT r.id AS reservation_id, g.name AS campground, p.code AS pitch, p.kind, r.arrival, r.departure,
		CAST(julianday(r.departure) - julianday(r.arrival) AS INTEGER) AS nights, r.party_size, r.status, r.pitch_cost,
		COALESCE((SELECT group_concat(e.extra_code || ' x' || e.quantity || ' = ' || printf('%.2f', e.cost), ', ') FROM reservation_extras e WHERE e.reservation_id = r.id), '') AS extras,
		ROUND(r.pitch_cost + COALESCE((SELECT SUM(e.cost) FROM reservation_extras e WHERE e.reservation_id = r.id), 0), 2) AS total, r.refund
		FROM reservations r JOIN pitches p ON p.id = r.pitch_id JOIN campgrounds g ON g.id = p.campground_id
		WHERE r.camper_id = ? ORDER BY r.arrival`, args.CamperID)
}

type GetPitchArgs struct {
	// Campground name, e.g. Pine Lake
	Campground string `json:"campground"`
	// Pitch code, e.g. C12
	Code string `json:"code"`
}

// GetPitch returns a pitch's kind, limits, electricity and nightly rate.
func GetPitch(args GetPitchArgs) (map[string]any, error) {
	p, err := findPitch(args.Campground, args.Code)
	if err != nil {
		return nil, err
	}
	return map[string]any{"campground": p.String("campground"), "code": p.String("code"), "kind": p.String("kind"),
		"max_party": p.Int("max_party"), "max_vehicle_m": p.Float("max_vehicle_m"), "has_electric": p.Int("has_electric") == 1,
		"nightly_rate": p.Float("nightly_rate")}, nil
}

type SearchPitchesArgs struct {
	// Campground name
	Campground string `json:"campground"`
	// tent, caravan or cabin
	Kind string `json:"kind"`
	// Arrival date, YYYY-MM-DD
	Arrival string `json:"arrival"`
	// Departure date, YYYY-MM-DD
	Departure string `json:"departure"`
	// Number of people
	PartySize int `json:"party_size"`
	// Vehicle length in metres (0 for none)
	VehicleM float64 `json:"vehicle_m,omitempty"`
}

// SearchPitches lists free pitches that fit, cheapest first.
func SearchPitches(args SearchPitchesArgs) (sdk.Rows, error) {
	var none sdk.Rows
	gid, err := campgroundID(args.Campground)
	if err != nil {
		return none, err
	}
	nights, err := stay(args.Arrival, args.Departure)
	if err != nil {
		return none, err
	}
	if args.PartySize < 1 {
		return none, errors.New("party_size must be at least 1")
	}
	return sdk.Query(`SELECT p.code, p.kind, p.max_party, p.max_vehicle_m, p.has_electric, p.nightly_rate, ROUND(p.nightly_rate * ?, 2) AS stay_cost
		FROM pitches p WHERE p.campground_id = ? AND p.kind = ? AND p.max_party >= ? AND p.max_vehicle_m >= ?
		AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.pitch_id = p.id AND r.status = 'booked' AND r.arrival < ? AND r.departure > ?)
		ORDER BY p.nightly_rate, p.code`, nights, gid, strings.ToLower(args.Kind), args.PartySize, args.VehicleM, args.Departure, args.Arrival)
}

type CreateReservationArgs struct {
	// Camper id
	CamperID string `json:"camper_id"`
	// Campground name
	Campground string `json:"campground"`
	// Pitch code
	Code string `json:"code"`
	// Arrival date, YYYY-MM-DD
	Arrival string `json:"arrival"`
	// Departure date, YYYY-MM-DD
	Departure string `json:"departure"`
	// Number of people
	PartySize int `json:"party_size"`
	// Vehicle length in metres (0 for none)
	VehicleM float64 `json:"vehicle_m,omitempty"`
}

// CreateReservation reserves a free pitch that fits the party and vehicle.
func CreateReservation(args CreateReservationArgs) (map[string]any, error) {
	if err := requireCamper(args.CamperID); err != nil {
		return nil, err
	}
	p, err := findPitch(args.Campground, args.Code)
	if err != nil {
		return nil, err
	}
	nights, err := stay(args.Arrival, args.Departure)
	if err != nil {
		return nil, err
	}
	if args.Arrival <= today() {
		return nil, fmt.Errorf("the arrival must be after today (%s)", today())
	}
	if args.PartySize < 1 || int64(args.PartySize) > p.Int("max_party") {
		return nil, fmt.Errorf("pitch %s takes at most %d people", p.String("code"), p.Int("max_party"))
	}
	if args.VehicleM > p.Float("max_vehicle_m") {
		if p.Float("max_vehicle_m") == 0 {
			return nil, fmt.Errorf("pitch %s takes no vehicle", p.String("code"))
		}
		return nil, fmt.Errorf("a %.1f m vehicle does not fit pitch %s (at most %.1f m)", args.VehicleM, p.String("code"), p.Float("max_vehicle_m"))
	}
	free, err := pitchFree(p.String("id"), args.Arrival, args.Departure, "")
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, fmt.Errorf("pitch %s is not free on every night from %s to %s", p.String("code"), args.Arrival, args.Departure)
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 100) + 1 AS n FROM reservations WHERE id LIKE 'R-%'`)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("R-%d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO reservations (id, camper_id, pitch_id, arrival, departure, party_size, vehicle_m, status, pitch_cost, refund, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'booked', ?, 0, ?)`,
		id, args.CamperID, p.String("id"), args.Arrival, args.Departure, args.PartySize, args.VehicleM, round2(float64(nights)*p.Float("nightly_rate")), sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	return reservationView(id)
}

type AddExtraArgs struct {
	// Camper id
	CamperID string `json:"camper_id"`
	// Reservation id
	ReservationID string `json:"reservation_id"`
	// electric_hookup or firewood
	Extra string `json:"extra"`
	// Number of firewood bundles (ignored for the hook-up)
	Quantity int `json:"quantity,omitempty"`
}

// AddExtra adds an electric hook-up or firewood to a booked reservation before arrival.
func AddExtra(args AddExtraArgs) (map[string]any, error) {
	r, err := ownReservation(args.CamperID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is %s", r.String("id"), r.String("status"))
	}
	if r.String("arrival") <= today() {
		return nil, fmt.Errorf("reservation %s has already started: extras can only be added before arrival", r.String("id"))
	}
	extra, err := sdk.QueryRow(`SELECT price FROM extras WHERE code = ?`, args.Extra)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("unknown extra %q: use electric_hookup or firewood", args.Extra)
	}
	if err != nil {
		return nil, err
	}
	nights, err := stay(r.String("arrival"), r.String("departure"))
	if err != nil {
		return nil, err
	}
	switch args.Extra {
	case "electric_hookup":
		if r.Int("has_electric") != 1 {
			return nil, fmt.Errorf("the pitch of reservation %s has no electricity", r.String("id"))
		}
		if _, err := sdk.QueryRow(`SELECT id FROM reservation_extras WHERE reservation_id = ? AND extra_code = 'electric_hookup'`, r.String("id")); err == nil {
			return nil, fmt.Errorf("reservation %s already has an electric hook-up", r.String("id"))
		}
		if _, err := sdk.Exec(`INSERT INTO reservation_extras (reservation_id, extra_code, quantity, cost) VALUES (?, 'electric_hookup', ?, ?)`, r.String("id"), nights, round2(float64(nights)*extra.Float("price"))); err != nil {
			return nil, err
		}
	case "firewood":
		if args.Quantity < 1 {
			return nil, errors.New("quantity must be at least 1 bundle")
		}
		cost := round2(float64(args.Quantity) * extra.Float("price"))
		if existing, err := sdk.QueryRow(`SELECT id FROM reservation_extras WHERE reservation_id = ? AND extra_code = 'firewood'`, r.String("id")); err == nil {
			_, err = sdk.Exec(`UPDATE reservation_extras SET quantity = quantity + ?, cost = ROUND(cost + ?, 2) WHERE id = ?`, args.Quantity, cost, existing.Int("id"))
			if err != nil {
				return nil, err
			}
		} else if _, err := sdk.Exec(`INSERT INTO reservation_extras (reservation_id, extra_code, quantity, cost) VALUES (?, 'firewood', ?, ?)`, r.String("id"), args.Quantity, cost); err != nil {
			return nil, err
		}
	}
	return reservationView(r.String("id"))
}

type ChangeDatesArgs struct {
	// Camper id
	CamperID string `json:"camper_id"`
	// Reservation id
	ReservationID string `json:"reservation_id"`
	// New arrival date, YYYY-MM-DD
	Arrival string `json:"arrival"`
	// New departure date, YYYY-MM-DD
	Departure string `json:"departure"`
}

// ChangeDates moves a booked reservation to free nights on the same pitch.
func ChangeDates(args ChangeDatesArgs) (map[string]any, error) {
	r, err := ownReservation(args.CamperID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is %s", r.String("id"), r.String("status"))
	}
	if r.String("arrival") <= today() {
		return nil, fmt.Errorf("reservation %s has already started", r.String("id"))
	}
	nights, err := stay(args.Arrival, args.Departure)
	if err != nil {
		return nil, err
	}
	if args.Arrival <= today() {
		return nil, fmt.Errorf("the new arrival must be after today (%s)", today())
	}
	free, err := pitchFree(r.String("pitch_id"), args.Arrival, args.Departure, r.String("id"))
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, fmt.Errorf("the pitch is not free on every night from %s to %s", args.Arrival, args.Departure)
	}
	if _, err := sdk.Exec(`UPDATE reservations SET arrival = ?, departure = ?, pitch_cost = ? WHERE id = ?`, args.Arrival, args.Departure, round2(float64(nights)*r.Float("nightly_rate")), r.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE reservation_extras SET quantity = ?, cost = ROUND(? * (SELECT price FROM extras WHERE code = 'electric_hookup'), 2) WHERE reservation_id = ? AND extra_code = 'electric_hookup'`, nights, nights, r.String("id")); err != nil {
		return nil, err
	}
	return reservationView(r.String("id"))
}

type CancelReservationArgs struct {
	// Camper id
	CamperID string `json:"camper_id"`
	// Reservation id
	ReservationID string `json:"reservation_id"`
}

// CancelReservation cancels a booked reservation with the refund its timing allows.
func CancelReservation(args CancelReservationArgs) (map[string]any, error) {
	r, err := ownReservation(args.CamperID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is already %s", r.String("id"), r.String("status"))
	}
	view, err := reservationView(r.String("id"))
	if err != nil {
		return nil, err
	}
	total := view["total"].(float64)
	daysAhead, err := stay(today(), r.String("arrival"))
	if err != nil {
		daysAhead = 0 // arrival today or earlier: the stay has started
	}
	refund := 0.0
	switch {
	case daysAhead >= 7:
		refund = total
	case daysAhead >= 1:
		refund = round2(total / 2)
	}
	if _, err := sdk.Exec(`UPDATE reservations SET status = 'cancelled', refund = ? WHERE id = ?`, refund, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"reservation_id": r.String("id"), "status": "cancelled", "total": total, "refund": refund}, nil
}
