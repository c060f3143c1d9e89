package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// SlotsArgs name an animal and a date.
type SlotsArgs struct {
	// The animal's name such as Biscuit.
	AnimalName string `json:"animal_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

// ListVisitSlots lists an animal's open visit slots on a date.
func ListVisitSlots(args SlotsArgs) (sdk.Rows, error) {
	a, err := animalByName(args.AnimalName)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT substr(starts_at, 12, 5) AS time FROM visit_slots WHERE animal_id = ? AND substr(starts_at, 1, 10) = ? AND is_open = 1 ORDER BY starts_at`,
		a.String("id"), strings.TrimSpace(args.Date))
}

// BookVisitArgs are the arguments of book_visit.
type BookVisitArgs struct {
	// The adopter id find_adopter returned.
	AdopterID string `json:"adopter_id"`
	// The animal's name.
	AnimalName string `json:"animal_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Start time HH:MM.
	Time string `json:"time"`
}

// BookVisit books a meet-and-greet visit in an open slot.
func BookVisit(args BookVisitArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	a, err := animalByName(args.AnimalName)
	if err != nil {
		return nil, err
	}
	if a.String("status") == "adopted" {
		return nil, fmt.Errorf("%s has already been adopted", a.String("name"))
	}
	at := strings.TrimSpace(args.Date) + "T" + strings.TrimSpace(args.Time) + ":00Z"
	start, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return nil, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("a visit must be in the future")
	}
	slot, err := sdk.QueryRow(`SELECT id, is_open FROM visit_slots WHERE animal_id = ? AND starts_at = ?`, a.String("id"), at)
	if err == sdk.ErrNoRows || (err == nil && slot.Int("is_open") == 0) {
		return nil, fmt.Errorf("%s has no open visit slot on %s at %s", a.String("name"), args.Date, args.Time)
	}
	if err != nil {
		return nil, err
	}
	id, err := nextID("visits", "V-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO visits (id, adopter_id, animal_id, visit_at, status) VALUES (?, ?, ?, ?, 'booked')`, id, args.AdopterID, a.String("id"), at); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE visit_slots SET is_open = 0 WHERE id = ?`, slot.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": id, "animal": a.String("name"), "visit_at": at, "status": "booked"}, nil
}

// CancelVisitArgs name a visit.
type CancelVisitArgs struct {
	// The adopter id find_adopter returned.
	AdopterID string `json:"adopter_id"`
	// Visit id such as V-602.
	VisitID string `json:"visit_id"`
}

// CancelVisit cancels a booked visit and reopens its slot.
func CancelVisit(args CancelVisitArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	v, err := sdk.QueryRow(`SELECT id, animal_id, visit_at, status FROM visits WHERE id = ? AND adopter_id = ?`, strings.ToUpper(strings.TrimSpace(args.VisitID)), args.AdopterID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("visit %q is not one of this adopter's visits", args.VisitID)
	}
	if err != nil {
		return nil, err
	}
	if v.String("status") != "booked" {
		return nil, fmt.Errorf("visit %s is %s and cannot be cancelled", v.String("id"), v.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE visits SET status = 'cancelled' WHERE id = ?`, v.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE visit_slots SET is_open = 1 WHERE animal_id = ? AND starts_at = ?`, v.String("animal_id"), v.String("visit_at")); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": v.String("id"), "status": "cancelled"}, nil
}

// PlaceHold places a 3-day hold on an available animal.
func PlaceHold(args ApplicationArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	a, err := animalByName(args.AnimalName)
	if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC()
	stamp := now.Format("2006-01-02T15:04:05Z")
	if _, err := sdk.QueryRow(`SELECT id FROM holds WHERE adopter_id = ? AND status = 'active' AND expires_at > ?`, args.AdopterID, stamp); err == nil {
		return nil, fmt.Errorf("this adopter already has an active hold; release it first")
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if a.String("status") != "available" {
		return nil, fmt.Errorf("%s is %s, not available", a.String("name"), a.String("status"))
	}
	expires := now.Add(72 * time.Hour).Format("2006-01-02T15:04:05Z")
	if _, err := sdk.Exec(`INSERT INTO holds (adopter_id, animal_id, placed_at, expires_at, status) VALUES (?, ?, ?, ?, 'active')`, args.AdopterID, a.String("id"), stamp, expires); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE animals SET status = 'on_hold' WHERE id = ?`, a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"animal": a.String("name"), "status": "active", "expires_at": expires}, nil
}

// ReleaseHold releases the adopter's active hold on an animal.
func ReleaseHold(args ApplicationArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	a, err := animalByName(args.AnimalName)
	if err != nil {
		return nil, err
	}
	h, err := sdk.QueryRow(`SELECT id FROM holds WHERE adopter_id = ? AND animal_id = ? AND status = 'active'`, args.AdopterID, a.String("id"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("this adopter has no active hold on %s", a.String("name"))
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE holds SET status = 'released' WHERE id = ?`, h.Int("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE animals SET status = 'available' WHERE id = ?`, a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"animal": a.String("name"), "status": "released"}, nil
}
