package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// lateFee is charged for a cancellation less than 24 hours ahead.
const lateFee = 30.0

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func parseDate(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	return t, nil
}

func getPatient(id string) (sdk.Row, error) {
	p, err := sdk.QueryRow("SELECT id, account_id, name, relation, plan_id, last_cleaning, last_exam FROM patients WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("no patient with id %q", id)
	}
	return p, err
}

// eligible says whether a patient may have an appointment of type typ at
// start: a cleaning 6 months after the last cleaning, a treatment within 12
// months of the last exam.
func eligible(p sdk.Row, typ string, start time.Time) error {
	day := start.Format("2006-01-02")
	switch typ {
	case "cleaning":
		if p.IsNull("last_cleaning") || p.String("last_cleaning") == "" {
			return nil
		}
		last, err := parseDate(p.String("last_cleaning"))
		if err != nil {
			return err
		}
		next := last.AddDate(0, 6, 0).Format("2006-01-02")
		if day < next {
			return fmt.Errorf("%s is not due a cleaning until %s (6 months after the last cleaning on %s)", p.String("name"), next, p.String("last_cleaning"))
		}
	case "treatment":
		if p.IsNull("last_exam") || p.String("last_exam") == "" {
			return fmt.Errorf("%s needs an exam (check-up) before any treatment", p.String("name"))
		}
		last, err := parseDate(p.String("last_exam"))
		if err != nil {
			return err
		}
		until := last.AddDate(1, 0, 0).Format("2006-01-02")
		if day > until {
			return fmt.Errorf("%s's last exam was on %s, more than 12 months before %s: an exam (check-up) is needed before any treatment", p.String("name"), p.String("last_exam"), day)
		}
	}
	return nil
}

// roleFor is the provider role an appointment type needs.
func roleFor(typ string) (string, error) {
	switch typ {
	case "cleaning":
		return "hygienist", nil
	case "checkup", "treatment":
		return "dentist", nil
	}
	return "", fmt.Errorf("type %q is not checkup, cleaning or treatment", typ)
}

// openSlot returns an open slot in the future with its provider's role.
func openSlot(id string) (sdk.Row, time.Time, error) {
	s, err := sdk.QueryRow("SELECT s.id, s.provider_id, s.start, s.status, p.role, p.name FROM slots s JOIN providers p ON p.id = s.provider_id WHERE s.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, time.Time{}, fmt.Errorf("no slot with id %q", id)
	}
	if err != nil {
		return s, time.Time{}, err
	}
	if s.String("status") != "open" {
		return s, time.Time{}, fmt.Errorf("slot %s is not open", id)
	}
	start, err := time.Parse(time.RFC3339, s.String("start"))
	if err != nil {
		return s, time.Time{}, err
	}
	if !start.After(sdk.Now()) {
		return s, time.Time{}, fmt.Errorf("slot %s is in the past", id)
	}
	return s, start, nil
}

// busyAt fails when the patient has another booked appointment at start.
func busyAt(patientID, start, except string) error {
	_, err := sdk.QueryRow("SELECT id FROM appointments WHERE patient_id = ? AND start = ? AND status = 'booked' AND id <> ?", patientID, start, except)
	if err == nil {
		return fmt.Errorf("the patient already has an appointment at %s", start)
	}
	if errors.Is(err, sdk.ErrNoRows) {
		return nil
	}
	return err
}

func appointment(id string) (sdk.Row, error) {
	a, err := sdk.QueryRow("SELECT a.id, a.patient_id, pt.name AS patient, a.provider_id, p.name AS provider, a.start, a.type, a.treatment, a.status, a.cancelled_at FROM appointments a JOIN providers p ON p.id = a.provider_id JOIN patients pt ON pt.id = a.patient_id WHERE a.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return a, fmt.Errorf("no appointment with id %q", id)
	}
	return a, err
}
