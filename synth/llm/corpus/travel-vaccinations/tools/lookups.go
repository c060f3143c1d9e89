package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyPatientArgs are the arguments of verify_patient.
type VerifyPatientArgs struct {
	// patient number, such as P-1001
	PatientID string `json:"patient_id"`
	// YYYY-MM-DD
	DateOfBirth string `json:"date_of_birth"`
}

// VerifyPatient verifies a patient by patient number and date of birth and
// returns their name. Call it before anything else.
func VerifyPatient(args VerifyPatientArgs) (sdk.Row, error) {
	p, err := sdk.QueryRow("SELECT id AS patient_id, name FROM patients WHERE id = ? AND date_of_birth = ?", strings.ToUpper(strings.TrimSpace(args.PatientID)), strings.TrimSpace(args.DateOfBirth))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, errors.New("the patient number and date of birth do not match any patient")
	}
	return p, err
}

// PatientArgs name a patient.
type PatientArgs struct {
	// patient number
	PatientID string `json:"patient_id"`
}

// GetRecord returns a patient's vaccination record: doses given (vaccine,
// dose number, date), appointments (id, clinic, vaccine, dose, start,
// status) and trips.
func GetRecord(args PatientArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	doses, err := sdk.Query("SELECT v.name AS vaccine, d.dose_number, d.given_on FROM doses d JOIN vaccines v ON v.id = d.vaccine_id WHERE d.patient_id = ? ORDER BY d.given_on", p.String("id"))
	if err != nil {
		return nil, err
	}
	appts, err := sdk.Query("SELECT a.id, c.name AS clinic, v.name AS vaccine, a.dose_number, a.start, a.status FROM appointments a JOIN clinics c ON c.id = a.clinic_id JOIN vaccines v ON v.id = a.vaccine_id WHERE a.patient_id = ? ORDER BY a.start", p.String("id"))
	if err != nil {
		return nil, err
	}
	trips, err := sdk.Query("SELECT d.name AS destination, t.departure FROM trips t JOIN destinations d ON d.id = t.destination_id WHERE t.patient_id = ? ORDER BY t.departure", p.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"patient_id": p.String("id"), "name": p.String("name"), "doses_given": doses, "appointments": appts, "trips": trips}, nil
}

// ListVaccines lists the vaccines: id, name, doses in the series, minimum
// days between doses, and whether it is live.
func ListVaccines() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, doses, min_interval_days, live FROM vaccines ORDER BY name")
}

// VaccineArgs name a patient and a vaccine.
type VaccineArgs struct {
	// patient number
	PatientID string `json:"patient_id"`
	// vaccine id
	VaccineID string `json:"vaccine_id"`
}

// CheckVaccineEligibility says which dose of a vaccine a patient would get
// next, whether the series is complete, and the earliest date it is allowed
// (the minimum interval after the previous dose, and 28 days after another
// live vaccine for live vaccines).
func CheckVaccineEligibility(args VaccineArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	v, err := getVaccine(args.VaccineID)
	if err != nil {
		return nil, err
	}
	e, err := eligible(p.String("id"), v, "")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"patient_id": p.String("id"), "vaccine": v.String("name"), "series_complete": e.complete, "next_dose": e.next, "earliest_date": e.earliest, "reason": e.reason}
	if e.complete {
		out["next_dose"], out["earliest_date"] = 0, ""
	}
	return out, nil
}

// FindOpenSlotsArgs are the arguments of find_open_slots.
type FindOpenSlotsArgs struct {
	// clinic id or name (Central, Northside)
	Clinic string `json:"clinic"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// FindOpenSlots lists a clinic's open slots on a date, earliest first.
func FindOpenSlots(args FindOpenSlotsArgs) (sdk.Rows, error) {
	c, err := getClinic(args.Clinic)
	if err != nil {
		return sdk.Rows{}, err
	}
	d, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date))
	if err != nil {
		return sdk.Rows{}, fmt.Errorf("date %q is not in YYYY-MM-DD form", args.Date)
	}
	return sdk.Query("SELECT id AS slot_id, start FROM slots WHERE clinic_id = ? AND status = 'open' AND substr(start, 1, 10) = ? AND start > ? ORDER BY start", c.String("id"), d.Format("2006-01-02"), stamp(sdk.Now()))
}

// DestinationArgs name a destination.
type DestinationArgs struct {
	// destination name or id
	Destination string `json:"destination"`
}

// GetDestinationRequirements lists the vaccines a destination needs.
func GetDestinationRequirements(args DestinationArgs) (map[string]any, error) {
	d, err := getDestination(args.Destination)
	if err != nil {
		return nil, err
	}
	vs, err := sdk.Query("SELECT v.id AS vaccine_id, v.name, v.doses, v.live FROM destination_vaccines dv JOIN vaccines v ON v.id = dv.vaccine_id WHERE dv.destination_id = ? ORDER BY v.name", d.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"destination": d.String("name"), "vaccines": vs}, nil
}

// ListFees lists a patient's fees: description, amount, status (unpaid or
// paid), and the unpaid total.
func ListFees(args PatientArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	fees, err := sdk.Query("SELECT description, amount, status FROM fees WHERE patient_id = ? ORDER BY created_at", p.String("id"))
	if err != nil {
		return nil, err
	}
	total, err := sdk.QueryRow("SELECT COALESCE(SUM(amount), 0) AS t FROM fees WHERE patient_id = ? AND status = 'unpaid'", p.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"patient_id": p.String("id"), "fees": fees, "unpaid_total": total.Float("t")}, nil
}
