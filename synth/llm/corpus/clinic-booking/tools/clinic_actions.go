package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// changeNotice is how long before its start an appointment may still be
// moved or cancelled.
const changeNotice = 24 * time.Hour

// BookAppointmentArgs are the arguments of book_appointment.
type BookAppointmentArgs struct {
	// The verified patient's id.
	PatientID string `json:"patient_id"`
	// An open slot's id from find_open_slots.
	SlotID string `json:"slot_id"`
	// Why the patient is coming.
	Reason string `json:"reason"`
}

// BookAppointment books an open future slot for the patient.
func BookAppointment(args BookAppointmentArgs) (sdk.Row, error) {
	if err := patientExists(args.PatientID); err != nil {
		return sdk.Row{}, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return sdk.Row{}, errors.New("give the reason for the visit")
	}
	slot, err := openFutureSlot(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := noClash(args.PatientID, slot.String("starts_at"), 0); err != nil {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO appointments (patient_id, slot_id, status, reason, booked_at, cancelled_at) VALUES (?, ?, 'booked', ?, ?, NULL)`,
		args.PatientID, args.SlotID, reason, nowText())
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET status = 'booked' WHERE id = ?`, args.SlotID); err != nil {
		return sdk.Row{}, err
	}
	return appointmentView(res.LastInsertID)
}

func openFutureSlot(id string) (sdk.Row, error) {
	slot, err := sdk.QueryRow(`SELECT id, doctor_id, starts_at, status FROM slots WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no slot has the id %s", id)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if slot.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("slot %s is %s, not open", id, slot.String("status"))
	}
	if slot.String("starts_at") <= nowText() {
		return sdk.Row{}, fmt.Errorf("slot %s is in the past", id)
	}
	return slot, nil
}

// noClash fails when the patient has another booked appointment (other
// than except) starting at the same time.
func noClash(patient, startsAt string, except int64) error {
	_, err := sdk.QueryRow(`SELECT a.id FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.patient_id = ? AND a.status = 'booked' AND s.starts_at = ? AND a.id <> ?`, patient, startsAt, except)
	if err == nil {
		return fmt.Errorf("the patient already has an appointment at %s", startsAt)
	} else if err != sdk.ErrNoRows {
		return err
	}
	return nil
}

func appointmentView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT a.id AS appointment_id, d.name AS doctor, s.starts_at, a.status, a.reason, coalesce(a.cancelled_at, '') AS cancelled_at
		FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN doctors d ON d.id = s.doctor_id WHERE a.id = ?`, id)
}

// changeable loads the patient's booked appointment and checks it starts
// at least 24 hours from now.
func changeable(patient string, id int64) (sdk.Row, error) {
	if err := patientExists(patient); err != nil {
		return sdk.Row{}, err
	}
	a, err := sdk.QueryRow(`SELECT a.id, a.slot_id, a.status, s.doctor_id, s.starts_at FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.id = ? AND a.patient_id = ?`, id, patient)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the patient has no appointment %d", id)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("appointment %d is %s, not booked", id, a.String("status"))
	}
	start, err := time.Parse(time.RFC3339, a.String("starts_at"))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("appointment %d has an unreadable start time", id)
	}
	if start.Sub(sdk.Now()) < changeNotice {
		return sdk.Row{}, fmt.Errorf("appointment %d starts within 24 hours: it can no longer be changed here, please call the clinic", id)
	}
	return a, nil
}

// RescheduleAppointmentArgs are the arguments of reschedule_appointment.
type RescheduleAppointmentArgs struct {
	// The verified patient's id.
	PatientID string `json:"patient_id"`
	// The appointment's id from list_appointments.
	AppointmentID int64 `json:"appointment_id"`
	// The open slot to move to.
	NewSlotID string `json:"new_slot_id"`
}

// RescheduleAppointment moves a booked appointment to another open future
// slot of the same doctor and opens the old slot.
func RescheduleAppointment(args RescheduleAppointmentArgs) (sdk.Row, error) {
	a, err := changeable(args.PatientID, args.AppointmentID)
	if err != nil {
		return sdk.Row{}, err
	}
	slot, err := openFutureSlot(args.NewSlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	if slot.String("doctor_id") != a.String("doctor_id") {
		return sdk.Row{}, fmt.Errorf("slot %s is with another doctor: an appointment can only move to its own doctor's slots", args.NewSlotID)
	}
	if err := noClash(args.PatientID, slot.String("starts_at"), args.AppointmentID); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET status = 'open' WHERE id = ?`, a.String("slot_id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET status = 'booked' WHERE id = ?`, args.NewSlotID); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET slot_id = ? WHERE id = ?`, args.NewSlotID, args.AppointmentID); err != nil {
		return sdk.Row{}, err
	}
	return appointmentView(args.AppointmentID)
}

// CancelAppointmentArgs are the arguments of cancel_appointment.
type CancelAppointmentArgs struct {
	// The verified patient's id.
	PatientID string `json:"patient_id"`
	// The appointment's id from list_appointments.
	AppointmentID int64 `json:"appointment_id"`
}

// CancelAppointment cancels a booked appointment at least 24 hours ahead
// and opens its slot.
func CancelAppointment(args CancelAppointmentArgs) (sdk.Row, error) {
	a, err := changeable(args.PatientID, args.AppointmentID)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE id = ?`, nowText(), args.AppointmentID); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET status = 'open' WHERE id = ?`, a.String("slot_id")); err != nil {
		return sdk.Row{}, err
	}
	return appointmentView(args.AppointmentID)
}
