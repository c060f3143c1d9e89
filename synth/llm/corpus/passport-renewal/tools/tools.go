package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyApplicantArgs struct {
	// Application number, e.g. PA-2201
	ApplicationID string `json:"application_id"`
	// Applicant's date of birth, YYYY-MM-DD
	DateOfBirth string `json:"date_of_birth"`
}

// VerifyApplicant checks the application number against the applicant's date of birth.
func VerifyApplicant(args VerifyApplicantArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.DateOfBirth) != a.String("date_of_birth") {
		return nil, fmt.Errorf("the date of birth does not match application %s", args.ApplicationID)
	}
	return map[string]any{"verified": true, "application_id": a.String("id"), "applicant": a.String("applicant_name")}, nil
}

type ApplicationArgs struct {
	// Application number
	ApplicationID string `json:"application_id"`
}

// GetApplication returns an application's status, route, address, appointment and fees paid.
func GetApplication(args ApplicationArgs) (map[string]any, error) {
	return applicationView(args.ApplicationID)
}

// CheckPostalEligibility says whether the passport can be renewed by post.
func CheckPostalEligibility(args ApplicationArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	ok, reason, err := postalEligibility(a)
	if err != nil {
		return nil, err
	}
	return map[string]any{"application_id": a.String("id"), "eligible": ok, "reason": reason}, nil
}

type SetRenewalRouteArgs struct {
	// Application number
	ApplicationID string `json:"application_id"`
	// postal or in_person
	Route string `json:"route"`
}

// SetRenewalRoute sets an application's route to postal (when eligible) or in_person.
func SetRenewalRoute(args SetRenewalRouteArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	switch args.Route {
	case "postal":
		ok, reason, err := postalEligibility(a)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("application %s cannot be renewed by post: %s", a.String("id"), reason)
		}
		if _, err := bookedAppointment(a.String("id")); err == nil {
			return nil, fmt.Errorf("application %s still has a booked appointment: cancel it first", a.String("id"))
		} else if !errors.Is(err, sdk.ErrNoRows) {
			return nil, err
		}
	case "in_person":
	default:
		return nil, fmt.Errorf("unknown route %q: use postal or in_person", args.Route)
	}
	if _, err := sdk.Exec(`UPDATE applications SET route = ? WHERE id = ?`, args.Route, a.String("id")); err != nil {
		return nil, err
	}
	return applicationView(a.String("id"))
}

type ListFreeSlotsArgs struct {
	// Office name, e.g. Leeds Passport Office (the city alone also works)
	Office string `json:"office"`
	// Date, YYYY-MM-DD
	Date string `json:"date"`
}

// ListFreeSlots lists an office's free slots on a date.
func ListFreeSlots(args ListFreeSlotsArgs) (sdk.Rows, error) {
	var none sdk.Rows
	office, err := sdk.QueryRow(`SELECT id, name FROM offices WHERE lower(name) = lower(?) OR lower(city) = lower(?)`, strings.TrimSpace(args.Office), strings.TrimSpace(args.Office))
	if errors.Is(err, sdk.ErrNoRows) {
		return none, fmt.Errorf("unknown office %q", args.Office)
	}
	if err != nil {
		return none, err
	}
	if _, err := parseDay(args.Date); err != nil {
		return none, err
	}
	return sdk.Query(`SELECT s.id AS slot_id, s.starts_at, ? AS office FROM slots s
		WHERE s.office_id = ? AND substr(s.starts_at, 1, 10) = ? AND s.starts_at > ?
		AND s.id NOT IN (SELECT slot_id FROM appointments WHERE status = 'booked')
		ORDER BY s.starts_at`, office.String("name"), office.String("id"), args.Date, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"))
}

type SlotArgs struct {
	// Application number
	ApplicationID string `json:"application_id"`
	// Slot id from list_free_slots
	SlotID string `json:"slot_id"`
}

// BookAppointment books a free slot for an application with no appointment.
func BookAppointment(args SlotArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	if _, err := bookedAppointment(a.String("id")); err == nil {
		return nil, fmt.Errorf("application %s already has a booked appointment: move it instead", a.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	s, err := freeSlot(args.SlotID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO appointments (application_id, slot_id, status, booked_at) VALUES (?, ?, 'booked', ?)`, a.String("id"), s.String("id"), sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE applications SET route = 'in_person' WHERE id = ?`, a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"application_id": a.String("id"), "office": s.String("office"), "starts_at": s.String("starts_at"), "slot_id": s.String("id")}, nil
}

// MoveAppointment moves the application's booked appointment to a free slot.
func MoveAppointment(args SlotArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	ap, err := bookedAppointment(a.String("id"))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("application %s has no booked appointment to move", a.String("id"))
	}
	if err != nil {
		return nil, err
	}
	s, err := freeSlot(args.SlotID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET slot_id = ? WHERE id = ?`, s.String("id"), ap.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"application_id": a.String("id"), "office": s.String("office"), "starts_at": s.String("starts_at"), "slot_id": s.String("id")}, nil
}

// CancelAppointment cancels the application's booked appointment.
func CancelAppointment(args ApplicationArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	ap, err := bookedAppointment(a.String("id"))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("application %s has no booked appointment", a.String("id"))
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET status = 'cancelled' WHERE id = ?`, ap.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"application_id": a.String("id"), "cancelled": true, "office": ap.String("office"), "starts_at": ap.String("starts_at")}, nil
}

// UpgradeFastTrack makes an application fast-track and records the fee.
func UpgradeFastTrack(args ApplicationArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	if a.Int("fast_track") == 1 {
		return nil, fmt.Errorf("application %s is already fast-track", a.String("id"))
	}
	if st := a.String("status"); st == "printed" || st == "dispatched" {
		return nil, fmt.Errorf("application %s is already %s: it can no longer be fast-tracked", a.String("id"), st)
	}
	if _, err := sdk.Exec(`UPDATE applications SET fast_track = 1 WHERE id = ?`, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO fee_payments (application_id, kind, amount, paid_at) VALUES (?, 'fast_track', ?, ?)`, a.String("id"), fastTrackFee, sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	view, err := applicationView(a.String("id"))
	if err != nil {
		return nil, err
	}
	view["fee_charged"] = fastTrackFee
	return view, nil
}

type ChangeAddressArgs struct {
	// Application number
	ApplicationID string `json:"application_id"`
	// The full new address
	Address string `json:"address"`
}

// ChangeAddress records a new delivery address on an application not yet dispatched.
func ChangeAddress(args ChangeAddressArgs) (map[string]any, error) {
	a, err := loadApplication(args.ApplicationID)
	if err != nil {
		return nil, err
	}
	if a.String("status") == "dispatched" {
		return nil, fmt.Errorf("application %s has been dispatched: its address can no longer be changed", a.String("id"))
	}
	addr := strings.TrimSpace(args.Address)
	if addr == "" {
		return nil, errors.New("the address is empty")
	}
	if _, err := sdk.Exec(`UPDATE applications SET address = ? WHERE id = ?`, addr, a.String("id")); err != nil {
		return nil, err
	}
	return applicationView(a.String("id"))
}
