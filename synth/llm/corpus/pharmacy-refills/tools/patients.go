package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// FindPatientArgs are the arguments of find_patient.
type FindPatientArgs struct {
	// The patient's email.
	Email string `json:"email"`
}

// FindPatient finds the signed-in patient by email.
func FindPatient(args FindPatientArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT p.id AS patient_id, p.name, b.name AS home_branch FROM patients p JOIN branches b ON b.id = p.home_branch_id WHERE lower(p.email) = ?`,
		strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no patient has the email %q", args.Email)
	}
	return row, err
}

func patient(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, home_branch_id FROM patients WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no patient has the id %q", id)
	}
	return row, err
}

// PatientArgs name a patient.
type PatientArgs struct {
	// The patient id find_patient returned.
	PatientID string `json:"patient_id"`
}

// ListPrescriptions lists a patient's prescriptions.
func ListPrescriptions(args PatientArgs) (sdk.Rows, error) {
	if _, err := patient(args.PatientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS prescription_id, drug_name, refills_remaining, days_supply, next_refill_date, price, insurance_covers
		FROM prescriptions WHERE patient_id = ? ORDER BY id`, args.PatientID)
}

// ListOrders lists a patient's orders.
func ListOrders(args PatientArgs) (sdk.Rows, error) {
	if _, err := patient(args.PatientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT o.id AS order_id, o.prescription_id, p.drug_name, b.name AS branch, o.status, o.price, o.insurance_paid, o.amount_due, o.created_at
		FROM orders o JOIN prescriptions p ON p.id = o.prescription_id JOIN branches b ON b.id = o.branch_id WHERE o.patient_id = ? ORDER BY o.id`, args.PatientID)
}

// ListBranches lists the branches.
func ListBranches() (sdk.Rows, error) {
	return sdk.Query(`SELECT id, name FROM branches ORDER BY name`)
}

func branchID(name string) (string, error) {
	b, err := sdk.QueryRow(`SELECT id FROM branches WHERE lower(name) = ? OR id = ?`, strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no branch is called %q", name)
	}
	if err != nil {
		return "", err
	}
	return b.String("id"), nil
}
