package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyCustomerArgs struct {
	// Job reference, e.g. MV-1042
	JobID string `json:"job_id"`
	// Phone number, e.g. 555-0142
	Phone string `json:"phone"`
}

// VerifyCustomer verifies a customer by a job reference and the phone on file.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	row, err := sdk.QueryRow(`SELECT c.id, c.name, c.phone FROM jobs j JOIN customers c ON c.id = j.customer_id WHERE j.id = ?`, strings.TrimSpace(args.JobID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("job %s not found", args.JobID)
	}
	if err != nil {
		return nil, err
	}
	if digits(args.Phone) == "" || digits(args.Phone) != digits(row.String("phone")) {
		return nil, fmt.Errorf("the phone number does not match the one on file for job %s", args.JobID)
	}
	jobs, err := sdk.Query(`SELECT id AS job_id, move_date, status FROM jobs WHERE customer_id = ? ORDER BY move_date`, row.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"customer_id": row.String("id"), "name": row.String("name"), "jobs": jobs}, nil
}

type GetJobArgs struct {
	// Job reference
	JobID string `json:"job_id"`
}

// GetJob returns a job with its balance due, crew, boxes, inventory and claims.
func GetJob(args GetJobArgs) (map[string]any, error) {
	return jobView(strings.TrimSpace(args.JobID))
}

type FindFreeCrewsArgs struct {
	// Date, YYYY-MM-DD
	Date string `json:"date"`
}

// FindFreeCrews lists the crews with no time off and no booked move on a date.
func FindFreeCrews(args FindFreeCrewsArgs) (sdk.Rows, error) {
	if _, err := daysFromToday(args.Date); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT c.id AS crew_id, c.leader_name FROM crews c
		WHERE c.id NOT IN (SELECT crew_id FROM crew_time_off WHERE day = ?)
		AND c.id NOT IN (SELECT crew_id FROM jobs WHERE move_date = ? AND status = 'booked' AND crew_id IS NOT NULL)
		ORDER BY c.id`, args.Date, args.Date)
}
