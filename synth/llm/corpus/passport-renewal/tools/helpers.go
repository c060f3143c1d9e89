package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const fastTrackFee = 100.0

func loadApplication(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT a.*, p.name AS applicant_name, p.date_of_birth FROM applications a JOIN applicants p ON p.id = a.applicant_id WHERE a.id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return row, fmt.Errorf("application %s not found", id)
	}
	return row, err
}

func parseDay(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return t, fmt.Errorf("invalid date %q: use YYYY-MM-DD", s)
	}
	return t, nil
}

// ageOn is a person's age in whole years on a day.
func ageOn(birth, day time.Time) int {
	age := day.Year() - birth.Year()
	if day.Month() < birth.Month() || (day.Month() == birth.Month() && day.Day() < birth.Day()) {
		age--
	}
	return age
}

// postalEligibility says whether the application's passport can be renewed by post, and why.
func postalEligibility(a sdk.Row) (bool, string, error) {
	birth, err := parseDay(a.String("date_of_birth"))
	if err != nil {
		return false, "", err
	}
	issued, err := parseDay(a.String("passport_issued_on"))
	if err != nil {
		return false, "", err
	}
	expires, err := parseDay(a.String("passport_expires_on"))
	if err != nil {
		return false, "", err
	}
	if a.Int("lost_or_stolen") == 1 {
		return false, "the passport was reported lost or stolen: an in-person appointment is needed", nil
	}
	if ageOn(birth, issued) < 16 {
		return false, "the passport was issued before the holder was 16 (a child passport): an in-person appointment is needed", nil
	}
	now := sdk.Now().UTC()
	if !expires.AddDate(5, 0, 0).After(now) {
		return false, fmt.Sprintf("the passport expired on %s, 5 or more years ago: an in-person appointment is needed", a.String("passport_expires_on")), nil
	}
	return true, "the passport can be renewed by post", nil
}

// bookedAppointment returns the application's booked appointment.
func bookedAppointment(appID string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT ap.id, ap.slot_id, s.starts_at, o.name AS office FROM appointments ap JOIN slots s ON s.id = ap.slot_id JOIN offices o ON o.id = s.office_id WHERE ap.application_id = ? AND ap.status = 'booked'`, appID)
}

// freeSlot loads a slot that no booked appointment uses and that starts after now.
func freeSlot(slotID string) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT s.id, s.starts_at, o.name AS office FROM slots s JOIN offices o ON o.id = s.office_id WHERE s.id = ?`, strings.TrimSpace(slotID))
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("slot %s not found", slotID)
	}
	if err != nil {
		return s, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM appointments WHERE slot_id = ? AND status = 'booked'`, s.String("id")); err == nil {
		return s, fmt.Errorf("slot %s is already booked", slotID)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return s, err
	}
	start, err := time.Parse(time.RFC3339, s.String("starts_at"))
	if err == nil && !start.After(sdk.Now()) {
		return s, fmt.Errorf("slot %s is in the past", slotID)
	}
	return s, nil
}

func applicationView(id string) (map[string]any, error) {
	a, err := loadApplication(id)
	if err != nil {
		return nil, err
	}
	fees, err := sdk.QueryRow(`SELECT COALESCE(SUM(amount), 0) AS total FROM fee_payments WHERE application_id = ?`, a.String("id"))
	if err != nil {
		return nil, err
	}
	view := map[string]any{
		"application_id":      a.String("id"),
		"applicant":           a.String("applicant_name"),
		"status":              a.String("status"),
		"route":               a.String("route"),
		"fast_track":          a.Int("fast_track") == 1,
		"address":             a.String("address"),
		"passport_issued_on":  a.String("passport_issued_on"),
		"passport_expires_on": a.String("passport_expires_on"),
		"lost_or_stolen":      a.Int("lost_or_stolen") == 1,
		"fees_paid":           fees.Float("total"),
		"appointment":         nil,
	}
	if ap, err := bookedAppointment(a.String("id")); err == nil {
		view["appointment"] = map[string]any{"office": ap.String("office"), "starts_at": ap.String("starts_at"), "slot_id": ap.String("slot_id")}
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	return view, nil
}
