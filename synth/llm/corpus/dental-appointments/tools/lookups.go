package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetAccountArgs are the arguments of get_account.
type GetAccountArgs struct {
	// the account holder's email
	Email string `json:"email"`
}

// GetAccount finds the signed-in user's account by email, with its patients.
func GetAccount(args GetAccountArgs) (map[string]any, error) {
	acc, err := sdk.QueryRow("SELECT id, holder_name, email, card_last4 FROM accounts WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no account with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	pts, err := sdk.Query("SELECT p.id, p.name, p.relation, pl.name AS plan, p.last_cleaning, p.last_exam FROM patients p LEFT JOIN plans pl ON pl.id = p.plan_id WHERE p.account_id = ? ORDER BY p.rowid", acc.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": acc.String("id"), "holder_name": acc.String("holder_name"), "email": acc.String("email"), "card_last4": acc.String("card_last4"), "patients": pts}, nil
}

// ListProviders lists the dentists and hygienists.
func ListProviders() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, role FROM providers ORDER BY id")
}

// FindOpenSlotsArgs are the arguments of find_open_slots.
type FindOpenSlotsArgs struct {
	// provider id from list_providers
	ProviderID string `json:"provider_id"`
	// date, YYYY-MM-DD
	Date string `json:"date"`
}

// FindOpenSlots lists a provider's open slots on a date, earliest first.
func FindOpenSlots(args FindOpenSlotsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM providers WHERE id = ?", args.ProviderID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no provider with id %q", args.ProviderID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	d, err := parseDate(args.Date)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id AS slot_id, start FROM slots WHERE provider_id = ? AND status = 'open' AND substr(start, 1, 10) = ? AND start > ? ORDER BY start",
		args.ProviderID, d.Format("2006-01-02"), sdk.Now().UTC().Format("2006-01-02T15:04:05Z"))
}

// PatientArgs name a patient.
type PatientArgs struct {
	// patient id
	PatientID string `json:"patient_id"`
}

// GetEligibility says when a patient may next have a cleaning and until when
// their last exam allows treatments.
func GetEligibility(args PatientArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"patient_id": p.String("id"), "name": p.String("name"), "last_cleaning": "", "last_exam": "", "next_cleaning_date": sdk.Now().Format("2006-01-02"), "exam_valid_until": ""}
	if !p.IsNull("last_cleaning") && p.String("last_cleaning") != "" {
		last, err := parseDate(p.String("last_cleaning"))
		if err != nil {
			return nil, err
		}
		out["last_cleaning"] = p.String("last_cleaning")
		out["next_cleaning_date"] = last.AddDate(0, 6, 0).Format("2006-01-02")
	}
	if !p.IsNull("last_exam") && p.String("last_exam") != "" {
		last, err := parseDate(p.String("last_exam"))
		if err != nil {
			return nil, err
		}
		out["last_exam"] = p.String("last_exam")
		out["exam_valid_until"] = last.AddDate(1, 0, 0).Format("2006-01-02")
	}
	return out, nil
}

// ListAppointments lists a patient's appointments, earliest first.
func ListAppointments(args PatientArgs) (sdk.Rows, error) {
	if _, err := getPatient(args.PatientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT a.id, p.name AS provider, a.start, a.type, a.treatment, a.status FROM appointments a JOIN providers p ON p.id = a.provider_id WHERE a.patient_id = ? ORDER BY a.start", args.PatientID)
}

// ListCharges lists a patient's charges with what the patient owes.
func ListCharges(args PatientArgs) (sdk.Rows, error) {
	if _, err := getPatient(args.PatientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id, kind, description, date, amount, insurance_share, round(amount - insurance_share, 2) AS patient_owes, status FROM charges WHERE patient_id = ? ORDER BY date, id", args.PatientID)
}

// GetPlanCoverageArgs are the arguments of get_plan_coverage.
type GetPlanCoverageArgs struct {
	// patient id
	PatientID string `json:"patient_id"`
	// year, such as 2024
	Year int `json:"year"`
}

// GetPlanCoverage returns what is left of a patient's annual maximum.
func GetPlanCoverage(args GetPlanCoverageArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	if p.IsNull("plan_id") || p.String("plan_id") == "" {
		return nil, fmt.Errorf("%s has no insurance plan", p.String("name"))
	}
	plan, err := sdk.QueryRow("SELECT name, annual_max FROM plans WHERE id = ?", p.String("plan_id"))
	if err != nil {
		return nil, err
	}
	used, err := sdk.QueryRow("SELECT COALESCE(SUM(insurance_share), 0) AS used FROM charges WHERE patient_id = ? AND substr(date, 1, 4) = ?", args.PatientID, fmt.Sprintf("%04d", args.Year))
	if err != nil {
		return nil, err
	}
	remaining := plan.Float("annual_max") - used.Float("used")
	if remaining < 0 {
		remaining = 0
	}
	return map[string]any{"patient_id": args.PatientID, "plan": plan.String("name"), "year": args.Year, "annual_max": plan.Float("annual_max"), "used": round2(used.Float("used")), "remaining": round2(remaining)}, nil
}
