package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyResidentArgs are the arguments of verify_resident.
type VerifyResidentArgs struct {
	// The resident's full name.
	Name string `json:"name"`
	// The resident's zip code.
	Zip string `json:"zip"`
}

// VerifyResident verifies a resident by full name and zip code.
func VerifyResident(args VerifyResidentArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM residents WHERE lower(name) = lower(?) AND zip = ?`, strings.TrimSpace(args.Name), strings.TrimSpace(args.Zip))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no resident matches that name and zip code")
	}
	return row, err
}

func residentExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM residents WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no resident has the id %s", id)
	}
	return err
}

// ListPermitTypes lists the permit types with their fees.
func ListPermitTypes() (sdk.Rows, error) {
	return sdk.Query(`SELECT code, title, fee FROM permit_types ORDER BY code`)
}

// ListApplicationsArgs are the arguments of list_applications.
type ListApplicationsArgs struct {
	// The verified resident's id.
	ResidentID string `json:"resident_id"`
}

// ListApplications lists the resident's applications, newest first.
func ListApplications(args ListApplicationsArgs) (sdk.Rows, error) {
	if err := residentExists(args.ResidentID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT a.id AS application_id, a.type, a.description, coalesce(a.event_date, '') AS event_date, a.fee, a.status,
			a.submitted_at, coalesce(a.paid_at, '') AS paid_at, coalesce(a.decided_at, '') AS decided_at,
			EXISTS (SELECT 1 FROM permits p WHERE p.application_id = a.id AND p.active = 1) AS active_permit
		FROM applications a WHERE a.resident_id = ? ORDER BY a.submitted_at DESC`, args.ResidentID)
}
