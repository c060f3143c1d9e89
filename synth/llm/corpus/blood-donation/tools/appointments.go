package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// openSlot finds a centre's slot at a date and time with room, in the future.
func openSlot(centreName, date, hhmm string) (sdk.Row, time.Time, error) {
	c, err := centreID(centreName)
	if err != nil {
		return sdk.Row{}, time.Time{}, err
	}
	at := strings.TrimSpace(date) + "T" + strings.TrimSpace(hhmm) + ":00Z"
	when, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return sdk.Row{}, time.Time{}, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	s, err := sdk.QueryRow(`SELECT id, capacity, booked FROM slots WHERE centre_id = ? AND starts_at = ?`, c, at)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, time.Time{}, fmt.Errorf("%s has no slot on %s at %s", centreName, date, hhmm)
	}
	if err != nil {
		return sdk.Row{}, time.Time{}, err
	}
	if !when.After(sdk.Now()) {
		return sdk.Row{}, time.Time{}, fmt.Errorf("that slot is in the past")
	}
	if s.Int("booked") >= s.Int("capacity") {
		return sdk.Row{}, time.Time{}, fmt.Errorf("the slot on %s at %s is full", date, hhmm)
	}
	return s, when, nil
}

// eligibleOn refuses a donation of a kind before the donor's eligibility date.
func eligibleOn(donorID, kind string, when time.Time) error {
	from, err := eligibleFrom(donorID, kind)
	if err != nil {
		return err
	}
	if when.Format(day) < from.Format(day) {
		return fmt.Errorf("the donor may give %s only from %s", strings.ReplaceAll(kind, "_", " "), from.Format(day))
	}
	return nil
}

// BookArgs are the arguments of book_appointment.
type BookArgs struct {
	// The donor id find_donor returned.
	DonorID string `json:"donor_id"`
	// Centre name.
	CentreName string `json:"centre_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Time HH:MM.
	Time string `json:"time"`
	// whole_blood or platelets.
	Kind string `json:"kind"`
}

// BookAppointment books a donation in a slot with room when the donor is eligible.
func BookAppointment(args BookArgs) (map[string]any, error) {
	if err := donorExists(args.DonorID); err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(args.Kind), " ", "_"))
	if kind != "whole_blood" && kind != "platelets" {
		return nil, fmt.Errorf("kind must be whole_blood or platelets, not %q", args.Kind)
	}
	s, when, err := openSlot(args.CentreName, args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if err := eligibleOn(args.DonorID, kind, when); err != nil {
		return nil, err
	}
	id, err := nextAppointmentID()
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO appointments (id, donor_id, slot_id, kind, status) VALUES (?, ?, ?, ?, 'booked')`, id, args.DonorID, s.String("id"), kind); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked + 1 WHERE id = ?`, s.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": id, "centre": strings.TrimSpace(args.CentreName), "starts_at": when.Format(time.RFC3339), "kind": kind}, nil
}

func bookedAppointment(donorID, id string) (sdk.Row, error) {
	if err := donorExists(donorID); err != nil {
		return sdk.Row{}, err
	}
	a, err := sdk.QueryRow(`SELECT id, slot_id, kind, status FROM appointments WHERE id = ? AND donor_id = ?`, strings.ToUpper(strings.TrimSpace(id)), donorID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("appointment %q is not one of this donor's appointments", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("appointment %s is %s", a.String("id"), a.String("status"))
	}
	return a, nil
}

// RescheduleArgs are the arguments of reschedule_appointment.
type RescheduleArgs struct {
	// The donor id find_donor returned.
	DonorID string `json:"donor_id"`
	// Appointment id such as AP-901.
	AppointmentID string `json:"appointment_id"`
	// Centre name.
	CentreName string `json:"centre_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Time HH:MM.
	Time string `json:"time"`
}

// RescheduleAppointment moves a booked appointment to another slot with room.
func RescheduleAppointment(args RescheduleArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.DonorID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	s, when, err := openSlot(args.CentreName, args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if s.String("id") == a.String("slot_id") {
		return nil, fmt.Errorf("the appointment is already in that slot")
	}
	if err := eligibleOn(args.DonorID, a.String("kind"), when); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked - 1 WHERE id = ?`, a.String("slot_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked + 1 WHERE id = ?`, s.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET slot_id = ? WHERE id = ?`, s.String("id"), a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "centre": strings.TrimSpace(args.CentreName), "starts_at": when.Format(time.RFC3339), "kind": a.String("kind")}, nil
}

// CancelArgs name an appointment.
type CancelArgs struct {
	// The donor id find_donor returned.
	DonorID string `json:"donor_id"`
	// Appointment id.
	AppointmentID string `json:"appointment_id"`
}

// CancelAppointment cancels a booked appointment and frees its place.
func CancelAppointment(args CancelArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.DonorID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET status = 'cancelled' WHERE id = ?`, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE slots SET booked = booked - 1 WHERE id = ?`, a.String("slot_id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "status": "cancelled"}, nil
}
