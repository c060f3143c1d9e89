package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookAppointmentArgs are the arguments of book_appointment.
type BookAppointmentArgs struct {
	// patient number
	PatientID string `json:"patient_id"`
	// open slot id
	SlotID string `json:"slot_id"`
	// vaccine id
	VaccineID string `json:"vaccine_id"`
}

// BookAppointment books the patient's next dose of a vaccine in an open
// slot. It fails when the slot is not open, the series is complete, or the
// slot is before the earliest date the dose is allowed.
func BookAppointment(args BookAppointmentArgs) (sdk.Row, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return sdk.Row{}, err
	}
	v, err := getVaccine(args.VaccineID)
	if err != nil {
		return sdk.Row{}, err
	}
	s, err := openSlot(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	e, err := eligible(p.String("id"), v, "")
	if err != nil {
		return sdk.Row{}, err
	}
	if e.complete {
		return sdk.Row{}, errors.New(e.reason)
	}
	if day := s.String("start")[:10]; day < e.earliest {
		return sdk.Row{}, fmt.Errorf("dose %d of %s is allowed from %s (%s), not on %s", e.next, v.String("name"), e.earliest, e.reason, day)
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 3) AS INTEGER)), 0) + 1 AS n FROM appointments WHERE id LIKE 'a-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("a-%02d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO appointments (id, patient_id, clinic_id, vaccine_id, dose_number, start, status) VALUES (?, ?, ?, ?, ?, ?, 'booked')",
		id, p.String("id"), s.String("clinic_id"), v.String("id"), e.next, s.String("start")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getAppointment(id)
}

// RescheduleAppointmentArgs are the arguments of reschedule_appointment.
type RescheduleAppointmentArgs struct {
	// appointment id
	AppointmentID string `json:"appointment_id"`
	// open slot id
	SlotID string `json:"slot_id"`
}

// RescheduleAppointment moves a booked appointment to another open slot; the
// old slot opens again. It fails less than 24 hours before the appointment,
// or when the new slot is before the earliest date the dose is allowed.
func RescheduleAppointment(args RescheduleAppointmentArgs) (sdk.Row, error) {
	a, err := getAppointment(args.AppointmentID)
	if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("appointment %s is %s", a.String("id"), a.String("status"))
	}
	h, err := hoursUntil(a)
	if err != nil {
		return sdk.Row{}, err
	}
	if h < 24 {
		return sdk.Row{}, fmt.Errorf("appointment %s starts in less than 24 hours and cannot be moved", a.String("id"))
	}
	s, err := openSlot(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	v, err := getVaccine(a.String("vaccine_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	e, err := eligible(a.String("patient_id"), v, a.String("id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if day := s.String("start")[:10]; day < e.earliest {
		return sdk.Row{}, fmt.Errorf("this dose of %s is allowed from %s (%s), not on %s", v.String("name"), e.earliest, e.reason, day)
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE clinic_id = ? AND start = ?", a.String("clinic_id"), a.String("start")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE appointments SET clinic_id = ?, start = ? WHERE id = ?", s.String("clinic_id"), s.String("start"), a.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getAppointment(a.String("id"))
}

// AppointmentArgs name an appointment.
type AppointmentArgs struct {
	// appointment id
	AppointmentID string `json:"appointment_id"`
}

// CancelAppointment cancels a booked appointment and opens its slot. Less
// than 24 hours before it starts, a 25.00 late-cancellation fee is charged.
func CancelAppointment(args AppointmentArgs) (map[string]any, error) {
	a, err := getAppointment(args.AppointmentID)
	if err != nil {
		return nil, err
	}
	if a.String("status") != "booked" {
		return nil, fmt.Errorf("appointment %s is %s", a.String("id"), a.String("status"))
	}
	h, err := hoursUntil(a)
	if err != nil {
		return nil, err
	}
	fee := 0.0
	if h < 24 {
		fee = lateFee
		if _, err := sdk.Exec("INSERT INTO fees (patient_id, description, amount, status, created_at) VALUES (?, ?, ?, 'unpaid', ?)",
			a.String("patient_id"), "Late cancellation of "+a.String("id"), fee, stamp(sdk.Now())); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec("UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE id = ?", stamp(sdk.Now()), a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE clinic_id = ? AND start = ?", a.String("clinic_id"), a.String("start")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "vaccine": a.String("vaccine"), "start": a.String("start"), "status": "cancelled", "late_fee": fee}, nil
}

// TripArgs are the arguments of record_trip.
type TripArgs struct {
	// patient number
	PatientID string `json:"patient_id"`
	// destination name or id
	Destination string `json:"destination"`
	// YYYY-MM-DD
	Departure string `json:"departure"`
}

// RecordTrip records a trip for a patient: destination and departure date.
// It fails when the same trip is already recorded.
func RecordTrip(args TripArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	d, err := getDestination(args.Destination)
	if err != nil {
		return nil, err
	}
	dep, err := time.Parse("2006-01-02", strings.TrimSpace(args.Departure))
	if err != nil {
		return nil, fmt.Errorf("departure %q is not in YYYY-MM-DD form", args.Departure)
	}
	if _, err := sdk.QueryRow("SELECT id FROM trips WHERE patient_id = ? AND destination_id = ? AND departure = ?", p.String("id"), d.String("id"), dep.Format("2006-01-02")); err == nil {
		return nil, fmt.Errorf("the trip to %s on %s is already recorded", d.String("name"), dep.Format("2006-01-02"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO trips (patient_id, destination_id, departure) VALUES (?, ?, ?)", p.String("id"), d.String("id"), dep.Format("2006-01-02")); err != nil {
		return nil, err
	}
	return map[string]any{"patient_id": p.String("id"), "destination": d.String("name"), "departure": dep.Format("2006-01-02")}, nil
}

// RemoveTripArgs are the arguments of remove_trip.
type RemoveTripArgs struct {
	// patient number
	PatientID string `json:"patient_id"`
	// destination name or id
	Destination string `json:"destination"`
}

// RemoveTrip removes a patient's recorded trip to a destination.
func RemoveTrip(args RemoveTripArgs) (map[string]any, error) {
	p, err := getPatient(args.PatientID)
	if err != nil {
		return nil, err
	}
	d, err := getDestination(args.Destination)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec("DELETE FROM trips WHERE patient_id = ? AND destination_id = ?", p.String("id"), d.String("id"))
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("%s has no trip to %s", p.String("name"), d.String("name"))
	}
	return map[string]any{"patient_id": p.String("id"), "removed": d.String("name")}, nil
}
