package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyEmployeeArgs are the arguments of verify_employee.
type VerifyEmployeeArgs struct {
	// The employee's full name.
	Name string `json:"name"`
	// The employee's work email.
	Email string `json:"email"`
}

// VerifyEmployee verifies a person by full name and work email.
func VerifyEmployee(args VerifyEmployeeArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, coalesce(manager_id, '') AS manager_id FROM employees WHERE lower(name) = lower(?) AND lower(email) = lower(?)`,
		strings.TrimSpace(args.Name), strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, errors.New("no employee matches that name and email")
	}
	return row, err
}

func employeeExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM employees WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no employee has the id %s", id)
	}
	return err
}

// LeaveBalanceArgs are the arguments of leave_balance.
type LeaveBalanceArgs struct {
	// The verified employee's id.
	EmployeeID string `json:"employee_id"`
}

// LeaveBalance returns the year's annual allowance, days approved and
// pending, and the days left.
func LeaveBalance(args LeaveBalanceArgs) (sdk.Row, error) {
	if err := employeeExists(args.EmployeeID); err != nil {
		return sdk.Row{}, err
	}
	year := sdk.Now().Format("2006")
	return sdk.QueryRow(`SELECT e.annual_allowance AS allowance,
			coalesce((SELECT sum(days) FROM leave_requests r WHERE r.employee_id = e.id AND r.kind = 'annual' AND r.status = 'approved' AND substr(r.start_date, 1, 4) = ?), 0) AS approved_days,
			coalesce((SELECT sum(days) FROM leave_requests r WHERE r.employee_id = e.id AND r.kind = 'annual' AND r.status = 'pending' AND substr(r.start_date, 1, 4) = ?), 0) AS pending_days,
			e.annual_allowance - coalesce((SELECT sum(days) FROM leave_requests r WHERE r.employee_id = e.id AND r.kind = 'annual' AND r.status IN ('approved','pending') AND substr(r.start_date, 1, 4) = ?), 0) AS days_left
		FROM employees e WHERE e.id = ?`, year, year, year, args.EmployeeID)
}

// ListRequestsArgs are the arguments of list_requests.
type ListRequestsArgs struct {
	// The verified employee's id.
	EmployeeID string `json:"employee_id"`
}

// ListRequests lists the employee's leave requests, earliest first.
func ListRequests(args ListRequestsArgs) (sdk.Rows, error) {
	if err := employeeExists(args.EmployeeID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS request_id, r.kind, r.start_date, r.end_date, r.days, r.status, coalesce(m.name, '') AS decided_by
		FROM leave_requests r LEFT JOIN employees m ON m.id = r.decided_by WHERE r.employee_id = ? ORDER BY r.start_date`, args.EmployeeID)
}

// ListTeamRequestsArgs are the arguments of list_team_requests.
type ListTeamRequestsArgs struct {
	// The verified manager's id.
	ManagerID string `json:"manager_id"`
}

// ListTeamRequests lists the pending requests of the manager's reports.
func ListTeamRequests(args ListTeamRequestsArgs) (sdk.Rows, error) {
	if err := employeeExists(args.ManagerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS request_id, e.name AS employee, r.kind, r.start_date, r.end_date, r.days
		FROM leave_requests r JOIN employees e ON e.id = r.employee_id
		WHERE e.manager_id = ? AND r.status = 'pending' ORDER BY r.start_date`, args.ManagerID)
}
