package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// workingDays counts Monday to Friday from start to end inclusive.
func workingDays(start, end string) (int, error) {
	s, err := time.Parse("2006-01-02", strings.TrimSpace(start))
	if err != nil {
		return 0, fmt.Errorf("start_date %q is not a date YYYY-MM-DD", start)
	}
	e, err := time.Parse("2006-01-02", strings.TrimSpace(end))
	if err != nil {
		return 0, fmt.Errorf("end_date %q is not a date YYYY-MM-DD", end)
	}
	if e.Before(s) {
		return 0, fmt.Errorf("end_date is before start_date")
	}
	n := 0
	for d := s; !d.After(e); d = d.AddDate(0, 0, 1) {
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n++
		}
	}
	return n, nil
}

// RequestLeaveArgs are the arguments of request_leave.
type RequestLeaveArgs struct {
	// The verified employee's id.
	EmployeeID string `json:"employee_id"`
	// annual or sick.
	Kind string `json:"kind"`
	// First day, YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// Last day, YYYY-MM-DD.
	EndDate string `json:"end_date"`
}

// RequestLeave creates a pending leave request.
func RequestLeave(args RequestLeaveArgs) (sdk.Row, error) {
	if err := employeeExists(args.EmployeeID); err != nil {
		return sdk.Row{}, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if kind != "annual" && kind != "sick" {
		return sdk.Row{}, fmt.Errorf("the kind must be annual or sick, not %q", args.Kind)
	}
	days, err := workingDays(args.StartDate, args.EndDate)
	if err != nil {
		return sdk.Row{}, err
	}
	if days == 0 {
		return sdk.Row{}, fmt.Errorf("the period has no working day")
	}
	if args.StartDate < sdk.Now().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("leave must start today or later")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM leave_requests WHERE employee_id = ? AND status IN ('pending','approved') AND start_date <= ? AND end_date >= ?`,
		args.EmployeeID, args.EndDate, args.StartDate); err == nil {
		return sdk.Row{}, fmt.Errorf("the period overlaps another pending or approved request")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if kind == "annual" {
		bal, err := LeaveBalance(LeaveBalanceArgs{EmployeeID: args.EmployeeID})
		if err != nil {
			return sdk.Row{}, err
		}
		if int64(days) > bal.Int("days_left") {
			return sdk.Row{}, fmt.Errorf("%d days of annual leave is more than the %d days left", days, bal.Int("days_left"))
		}
	}
	res, err := sdk.Exec(`INSERT INTO leave_requests (employee_id, kind, start_date, end_date, days, status, decided_by, requested_at, decided_at)
		VALUES (?, ?, ?, ?, ?, 'pending', NULL, ?, NULL)`, args.EmployeeID, kind, args.StartDate, args.EndDate, days, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return requestView(res.LastInsertID)
}

func requestView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT r.id AS request_id, e.name AS employee, r.kind, r.start_date, r.end_date, r.days, r.status, coalesce(r.decided_at, '') AS decided_at
		FROM leave_requests r JOIN employees e ON e.id = r.employee_id WHERE r.id = ?`, id)
}

// CancelRequestArgs are the arguments of cancel_request.
type CancelRequestArgs struct {
	// The verified employee's id.
	EmployeeID string `json:"employee_id"`
	// The request's id from list_requests.
	RequestID int64 `json:"request_id"`
}

// CancelRequest cancels one of the employee's requests before it starts.
func CancelRequest(args CancelRequestArgs) (sdk.Row, error) {
	r, err := sdk.QueryRow(`SELECT id, status, start_date FROM leave_requests WHERE id = ? AND employee_id = ?`, args.RequestID, args.EmployeeID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the employee has no request %d", args.RequestID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if st := r.String("status"); st != "pending" && st != "approved" {
		return sdk.Row{}, fmt.Errorf("request %d is %s", args.RequestID, st)
	}
	if r.String("start_date") <= sdk.Now().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("request %d has started and can no longer be cancelled", args.RequestID)
	}
	if _, err := sdk.Exec(`UPDATE leave_requests SET status = 'cancelled' WHERE id = ?`, args.RequestID); err != nil {
		return sdk.Row{}, err
	}
	return requestView(args.RequestID)
}

// DecideRequestArgs are the arguments of decide_request.
type DecideRequestArgs struct {
	// The verified manager's id.
	ManagerID string `json:"manager_id"`
	// The request's id.
	RequestID int64 `json:"request_id"`
	// approve or reject.
	Decision string `json:"decision"`
}

// DecideRequest approves or rejects a direct report's pending request.
func DecideRequest(args DecideRequestArgs) (sdk.Row, error) {
	status := map[string]string{"approve": "approved", "reject": "rejected"}[strings.ToLower(strings.TrimSpace(args.Decision))]
	if status == "" {
		return sdk.Row{}, fmt.Errorf("the decision must be approve or reject, not %q", args.Decision)
	}
	r, err := sdk.QueryRow(`SELECT r.id, r.status FROM leave_requests r JOIN employees e ON e.id = r.employee_id WHERE r.id = ? AND e.manager_id = ?`,
		args.RequestID, args.ManagerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("request %d is not one of a direct report's", args.RequestID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if r.String("status") != "pending" {
		return sdk.Row{}, fmt.Errorf("request %d is %s, not pending", args.RequestID, r.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE leave_requests SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?`,
		status, args.ManagerID, sdk.Now().Format(time.RFC3339), args.RequestID); err != nil {
		return sdk.Row{}, err
	}
	return requestView(args.RequestID)
}
