package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	lateFee  = 25.0
	liveDays = 28
)

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func getPatient(id string) (sdk.Row, error) {
	p, err := sdk.QueryRow("SELECT id, name, date_of_birth FROM patients WHERE id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("no patient %q", id)
	}
	return p, err
}

func getVaccine(id string) (sdk.Row, error) {
	v, err := sdk.QueryRow("SELECT id, name, doses, min_interval_days, live FROM vaccines WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(id), strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return v, fmt.Errorf("no vaccine %q", id)
	}
	return v, err
}

func getClinic(ref string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name FROM clinics WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(ref), strings.TrimSpace(ref))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no clinic %q", ref)
	}
	return c, err
}

func getDestination(ref string) (sdk.Row, error) {
	d, err := sdk.QueryRow("SELECT id, name FROM destinations WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(ref), strings.TrimSpace(ref))
	if errors.Is(err, sdk.ErrNoRows) {
		return d, fmt.Errorf("no destination %q", ref)
	}
	return d, err
}

// eligibility is a patient's next dose of a vaccine and the earliest day it
// is allowed, counting doses given and appointments booked (except one).
type eligibility struct {
	next     int64
	complete bool
	earliest string
	reason   string
}

func eligible(patientID string, v sdk.Row, except string) (eligibility, error) {
	var e eligibility
	given, err := sdk.QueryRow("SELECT COUNT(*) AS n, COALESCE(MAX(given_on), '') AS last FROM doses WHERE patient_id = ? AND vaccine_id = ?", patientID, v.String("id"))
	if err != nil {
		return e, err
	}
	booked, err := sdk.QueryRow("SELECT COUNT(*) AS n, COALESCE(MAX(substr(start, 1, 10)), '') AS last FROM appointments WHERE patient_id = ? AND vaccine_id = ? AND status = 'booked' AND id <> ?", patientID, v.String("id"), except)
	if err != nil {
		return e, err
	}
	e.next = given.Int("n") + booked.Int("n") + 1
	if e.next > v.Int("doses") {
		e.complete = true
		e.reason = fmt.Sprintf("the %s series (%d doses) is already complete or booked", v.String("name"), v.Int("doses"))
		return e, nil
	}
	e.earliest = sdk.Now().UTC().Format("2006-01-02")
	last := max(given.String("last"), booked.String("last"))
	if last != "" && v.Int("min_interval_days") > 0 {
		t, err := time.Parse("2006-01-02", last)
		if err != nil {
			return e, err
		}
		if d := t.AddDate(0, 0, int(v.Int("min_interval_days"))).Format("2006-01-02"); d > e.earliest {
			e.earliest, e.reason = d, fmt.Sprintf("%d days after the previous dose on %s", v.Int("min_interval_days"), last)
		}
	}
	if v.Int("live") == 1 {
		live, err := sdk.QueryRow("SELECT COALESCE(MAX(d), '') AS last FROM (SELECT given_on AS d FROM doses x JOIN vaccines y ON y.id = x.vaccine_id WHERE x.patient_id = ? AND y.live = 1 AND y.id <> ? UNION ALL SELECT substr(start, 1, 10) FROM appointments a JOIN vaccines y ON y.id = a.vaccine_id WHERE a.patient_id = ? AND y.live = 1 AND y.id <> ? AND a.status = 'booked' AND a.id <> ?)",
			patientID, v.String("id"), patientID, v.String("id"), except)
		if err != nil {
			return e, err
		}
		if l := live.String("last"); l != "" {
			t, err := time.Parse("2006-01-02", l)
			if err != nil {
				return e, err
			}
			if d := t.AddDate(0, 0, liveDays).Format("2006-01-02"); d > e.earliest {
				e.earliest, e.reason = d, fmt.Sprintf("%d days after another live vaccine on %s", liveDays, l)
			}
		}
	}
	return e, nil
}

// openSlot returns an open, future slot.
func openSlot(id string) (sdk.Row, error) {
	s, err := sdk.QueryRow("SELECT s.id, s.clinic_id, c.name AS clinic, s.start, s.status FROM slots s JOIN clinics c ON c.id = s.clinic_id WHERE s.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no slot with id %q", id)
	}
	if err != nil {
		return s, err
	}
	if s.String("status") != "open" {
		return s, fmt.Errorf("slot %s is not open", id)
	}
	if s.String("start") <= stamp(sdk.Now()) {
		return s, fmt.Errorf("slot %s is in the past", id)
	}
	return s, nil
}

func getAppointment(id string) (sdk.Row, error) {
	a, err := sdk.QueryRow("SELECT a.id, a.patient_id, a.clinic_id, c.name AS clinic, a.vaccine_id, v.name AS vaccine, a.dose_number, a.start, a.status FROM appointments a JOIN clinics c ON c.id = a.clinic_id JOIN vaccines v ON v.id = a.vaccine_id WHERE a.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return a, fmt.Errorf("no appointment with id %q", id)
	}
	return a, err
}

// hoursUntil is the time from the clock to an appointment's start.
func hoursUntil(a sdk.Row) (float64, error) {
	t, err := time.Parse(time.RFC3339, a.String("start"))
	if err != nil {
		return 0, err
	}
	return t.Sub(sdk.Now()).Hours(), nil
}
