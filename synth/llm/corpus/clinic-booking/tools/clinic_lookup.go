package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyPatientArgs are the arguments of verify_patient.
type VerifyPatientArgs struct {
	// The patient's full name.
	Name string `json:"name"`
	// Date of birth, YYYY-MM-DD.
	DateOfBirth string `json:"date_of_birth"`
}

// VerifyPatient verifies a caller by full name and date of birth and
// returns the patient's id, name and email.
func VerifyPatient(args VerifyPatientArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM patients WHERE lower(name) = lower(?) AND date_of_birth = ?`,
		strings.TrimSpace(args.Name), strings.TrimSpace(args.DateOfBirth))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no patient matches that name and date of birth")
	}
	return row, err
}

// ListDoctors lists the clinic's doctors with id, name and specialty.
func ListDoctors() (sdk.Rows, error) {
	return sdk.Query(`SELECT id, name, specialty FROM doctors ORDER BY name`)
}

// FindOpenSlotsArgs are the arguments of find_open_slots.
type FindOpenSlotsArgs struct {
	// The doctor's name, such as Dr. Patel.
	Doctor string `json:"doctor"`
	// The day, YYYY-MM-DD.
	Date string `json:"date"`
}

// FindOpenSlots lists a doctor's open future slots on a day, earliest first.
func FindOpenSlots(args FindOpenSlotsArgs) (sdk.Rows, error) {
	doc, err := doctorByName(args.Doctor)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS slot_id, starts_at, minutes FROM slots
		WHERE doctor_id = ? AND status = 'open' AND substr(starts_at, 1, 10) = ? AND starts_at > ?
		ORDER BY starts_at`, doc.String("id"), strings.TrimSpace(args.Date), nowText())
}

func doctorByName(name string) (sdk.Row, error) {
	n := strings.TrimSpace(name)
	row, err := sdk.QueryRow(`SELECT id, name FROM doctors WHERE lower(name) = lower(?) OR lower(name) = lower('Dr. ' || ?)`, n, n)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no doctor is called %s", name)
	}
	return row, err
}

func patientExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM patients WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no patient has the id %s", id)
	}
	return err
}

func nowText() string { return sdk.Now().Format(time.RFC3339) }

// ListAppointmentsArgs are the arguments of list_appointments.
type ListAppointmentsArgs struct {
	// The verified patient's id.
	PatientID string `json:"patient_id"`
	// Only this status.
	Status string `json:"status,omitempty"`
}

// ListAppointments lists the patient's appointments, earliest first.
func ListAppointments(args ListAppointmentsArgs) (sdk.Rows, error) {
	if err := patientExists(args.PatientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT a.id AS appointment_id, d.name AS doctor, d.specialty, s.starts_at, a.status, a.reason
		FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN doctors d ON d.id = s.doctor_id
		WHERE a.patient_id = ? AND (? = '' OR a.status = lower(?)) ORDER BY s.starts_at`, args.PatientID, args.Status, args.Status)
}

// ListInvoicesArgs are the arguments of list_invoices.
type ListInvoicesArgs struct {
	// The verified patient's id.
	PatientID string `json:"patient_id"`
}

// ListInvoices lists the patient's invoices and the total still unpaid.
func ListInvoices(args ListInvoicesArgs) (map[string]any, error) {
	if err := patientExists(args.PatientID); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT i.id AS invoice_id, i.amount, i.status, i.issued_at, s.starts_at AS appointment_at
		FROM invoices i JOIN appointments a ON a.id = i.appointment_id JOIN slots s ON s.id = a.slot_id
		WHERE i.patient_id = ? ORDER BY i.issued_at`, args.PatientID)
	if err != nil {
		return nil, err
	}
	total, err := sdk.QueryRow(`SELECT round(coalesce(sum(amount), 0), 2) AS owed FROM invoices WHERE patient_id = ? AND status = 'unpaid'`, args.PatientID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"invoices": rows, "unpaid_total": total.Float("owed")}, nil
}
