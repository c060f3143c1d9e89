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
	// patient id
	PatientID string `json:"patient_id"`
	// open slot id from find_open_slots
	SlotID string `json:"slot_id"`
	// checkup, cleaning or treatment
	Type string `json:"type"`
	// the treatment's name, for type treatment (such as Filling)
	Treatment string `json:"treatment,omitempty"`
}

// BookAppointment books an open slot for a patient under the practice's rules.
func BookAppointment(args BookAppointmentArgs) (sdk.Row, error) {
	typ := strings.ToLower(strings.TrimSpace(args.Type))
	role, err := roleFor(typ)
	if err != nil {
		return sdk.Row{}, err
	}
	treatment := strings.TrimSpace(args.Treatment)
	if typ == "treatment" && treatment == "" {
		return sdk.Row{}, errors.New("a treatment appointment needs the treatment's name")
	}
	p, err := getPatient(args.PatientID)
	if err != nil {
		return sdk.Row{}, err
	}
	s, start, err := openSlot(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("role") != role {
		return sdk.Row{}, fmt.Errorf("a %s is with a %s, and %s is a %s", typ, role, s.String("name"), s.String("role"))
	}
	if err := eligible(p, typ, start); err != nil {
		return sdk.Row{}, err
	}
	if err := busyAt(p.String("id"), s.String("start"), ""); err != nil {
		return sdk.Row{}, err
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 100) + 1 AS n FROM appointments WHERE id LIKE 'ap-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("ap-%d", next.Int("n"))
	var tr any
	if typ == "treatment" {
		tr = treatment
	}
	if _, err := sdk.Exec("INSERT INTO appointments (id, patient_id, provider_id, start, type, treatment, status) VALUES (?, ?, ?, ?, ?, ?, 'booked')",
		id, p.String("id"), s.String("provider_id"), s.String("start"), typ, tr); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return appointment(id)
}

// RescheduleAppointmentArgs are the arguments of reschedule_appointment.
type RescheduleAppointmentArgs struct {
	// appointment id
	AppointmentID string `json:"appointment_id"`
	// open slot id
	SlotID string `json:"slot_id"`
}

// RescheduleAppointment moves a booked appointment to another open slot.
func RescheduleAppointment(args RescheduleAppointmentArgs) (sdk.Row, error) {
	a, err := appointment(args.AppointmentID)
	if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("appointment %s is %s, not booked", a.String("id"), a.String("status"))
	}
	role, err := roleFor(a.String("type"))
	if err != nil {
		return sdk.Row{}, err
	}
	s, start, err := openSlot(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("role") != role {
		return sdk.Row{}, fmt.Errorf("a %s is with a %s, and %s is a %s", a.String("type"), role, s.String("name"), s.String("role"))
	}
	p, err := getPatient(a.String("patient_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if err := eligible(p, a.String("type"), start); err != nil {
		return sdk.Row{}, err
	}
	if err := busyAt(p.String("id"), s.String("start"), a.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE provider_id = ? AND start = ?", a.String("provider_id"), a.String("start")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE appointments SET provider_id = ?, start = ? WHERE id = ?", s.String("provider_id"), s.String("start"), a.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return appointment(a.String("id"))
}

// AppointmentArgs name an appointment.
type AppointmentArgs struct {
	// appointment id
	AppointmentID string `json:"appointment_id"`
}

// CancelAppointment cancels a booked appointment, with a late fee less than
// 24 hours ahead.
func CancelAppointment(args AppointmentArgs) (map[string]any, error) {
	a, err := appointment(args.AppointmentID)
	if err != nil {
		return nil, err
	}
	if a.String("status") != "booked" {
		return nil, fmt.Errorf("appointment %s is %s, not booked", a.String("id"), a.String("status"))
	}
	start, err := time.Parse(time.RFC3339, a.String("start"))
	if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC()
	stamp := now.Format("2006-01-02T15:04:05Z")
	fee := 0.0
	if start.Sub(now) < 24*time.Hour {
		fee = lateFee
		next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 0) + 1 AS n FROM charges WHERE id LIKE 'ch-%'")
		if err != nil {
			return nil, err
		}
		if _, err := sdk.Exec("INSERT INTO charges (id, patient_id, kind, description, date, amount, insurance_share, status) VALUES (?, ?, 'late_cancellation', ?, ?, ?, 0, 'unpaid')",
			fmt.Sprintf("ch-%02d", next.Int("n")), a.String("patient_id"), "Late cancellation of "+a.String("id"), now.Format("2006-01-02"), fee); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec("UPDATE appointments SET status = 'cancelled', cancelled_at = ? WHERE id = ?", stamp, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE provider_id = ? AND start = ?", a.String("provider_id"), a.String("start")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "patient": a.String("patient"), "start": a.String("start"), "status": "cancelled", "late_fee": fee}, nil
}

// PayChargeArgs are the arguments of pay_charge.
type PayChargeArgs struct {
	// charge id
	ChargeID string `json:"charge_id"`
}

// PayCharge pays the patient's part of an unpaid charge with the card on file.
func PayCharge(args PayChargeArgs) (map[string]any, error) {
	c, err := sdk.QueryRow("SELECT c.id, c.description, c.amount, c.insurance_share, c.status, a.card_last4 FROM charges c JOIN patients p ON p.id = c.patient_id JOIN accounts a ON a.id = p.account_id WHERE c.id = ?", args.ChargeID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no charge with id %q", args.ChargeID)
	}
	if err != nil {
		return nil, err
	}
	if c.String("status") != "unpaid" {
		return nil, fmt.Errorf("charge %s is already paid", c.String("id"))
	}
	if _, err := sdk.Exec("UPDATE charges SET status = 'paid', paid_at = ? WHERE id = ?", sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), c.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"charge_id": c.String("id"), "description": c.String("description"), "paid": round2(c.Float("amount") - c.Float("insurance_share")), "card_last4": c.String("card_last4"), "status": "paid"}, nil
}
