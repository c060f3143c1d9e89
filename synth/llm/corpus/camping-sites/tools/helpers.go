package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func noRow() sdk.Row {
	var r sdk.Row
	return r
}

// stay checks an arrival and departure and returns the number of nights.
func stay(arrival, departure string) (int, error) {
	a, err := time.Parse("2006-01-02", arrival)
	if err != nil {
		return 0, fmt.Errorf("invalid arrival date %q: use YYYY-MM-DD", arrival)
	}
	d, err := time.Parse("2006-01-02", departure)
	if err != nil {
		return 0, fmt.Errorf("invalid departure date %q: use YYYY-MM-DD", departure)
	}
	nights := int(math.Round(d.Sub(a).Hours() / 24))
	if nights < 1 {
		return 0, errors.New("the departure must be at least one night after the arrival")
	}
	return nights, nil
}

func requireCamper(camperID string) error {
	_, err := sdk.QueryRow(`SELECT id FROM campers WHERE id = ?`, camperID)
	if errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("camper %s not found", camperID)
	}
	return err
}

// findPitch loads a pitch by campground name and pitch code.
func findPitch(campground, code string) (sdk.Row, error) {
	if _, err := campgroundID(campground); err != nil {
		return noRow(), err
	}
	p, err := sdk.QueryRow(`SELECT p.*, g.name AS campground FROM pitches p JOIN campgrounds g ON g.id = p.campground_id WHERE lower(g.name) = lower(?) AND upper(p.code) = upper(?)`, strings.TrimSpace(campground), strings.TrimSpace(code))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("pitch %s not found at %s", code, campground)
	}
	return p, err
}

func campgroundID(name string) (string, error) {
	g, err := sdk.QueryRow(`SELECT id FROM campgrounds WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if errors.Is(err, sdk.ErrNoRows) {
		return "", fmt.Errorf("campground %q not found", name)
	}
	if err != nil {
		return "", err
	}
	return g.String("id"), nil
}

// pitchFree says whether no booked reservation but skip holds the pitch on a night from arrival to departure.
func pitchFree(pitchID, arrival, departure, skip string) (bool, error) {
	_, err := sdk.QueryRow(`SELECT id FROM reservations WHERE pitch_id = ? AND status = 'booked' AND id <> ? AND arrival < ? AND departure > ? LIMIT 1`, pitchID, skip, departure, arrival)
	if errors.Is(err, sdk.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, nil
}

// ownReservation loads a reservation that must belong to the camper.
func ownReservation(camperID, reservationID string) (sdk.Row, error) {
	if err := requireCamper(camperID); err != nil {
		return noRow(), err
	}
	r, err := sdk.QueryRow(`SELECT r.*, p.has_electric, p.nightly_rate FROM reservations r JOIN pitches p ON p.id = r.pitch_id WHERE r.id = ? AND r.camper_id = ?`, strings.TrimSpace(reservationID), camperID)
	if errors.Is(err, sdk.ErrNoRows) {
		return r, fmt.Errorf("reservation %s not found for camper %s", reservationID, camperID)
	}
	return r, err
}

// reservationView is one reservation with its extras and total.
func reservationView(id string) (map[string]any, error) {
	r, err := sdk.QueryRow(`SELECT r.id, g.name AS campground, p.code AS pitch, p.kind, r.arrival, r.departure,
		CAST(julianday(r.departure) - julianday(r.arrival) AS INTEGER) AS nights, r.party_size, r.vehicle_m, r.status, r.pitch_cost, r.refund,
		r.pitch_cost + COALESCE((SELECT SUM(cost) FROM reservation_extras e WHERE e.reservation_id = r.id), 0) AS total
		FROM reservations r JOIN pitches p ON p.id = r.pitch_id JOIN campgrounds g ON g.id = p.campground_id WHERE r.id = ?`, id)
	if err != nil {
		return nil, err
	}
	extras, err := sdk.Query(`SELECT extra_code, quantity, cost FROM reservation_extras WHERE reservation_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"reservation_id": r.String("id"), "campground": r.String("campground"), "pitch": r.String("pitch"), "kind": r.String("kind"),
		"arrival": r.String("arrival"), "departure": r.String("departure"), "nights": r.Int("nights"), "party_size": r.Int("party_size"),
		"vehicle_m": r.Float("vehicle_m"), "status": r.String("status"), "pitch_cost": r.Float("pitch_cost"), "extras": extras,
		"total": round2(r.Float("total")), "refund": r.Float("refund"),
	}, nil
}
