package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// the customer's phone number
	Phone string `json:"phone"`
	// one of the customer's job numbers, such as J-301
	JobID string `json:"job_id"`
}

// VerifyCustomer verifies a customer by phone number and job number: it
// succeeds when the job is the customer's, and returns the customer's id and
// name. Call it before anything else.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT c.id AS customer_id, c.name FROM customers c JOIN jobs j ON j.customer_id = c.id WHERE c.phone = ? AND j.id = ?", strings.TrimSpace(args.Phone), strings.ToUpper(strings.TrimSpace(args.JobID)))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, errors.New("the phone number and job number do not match any customer")
	}
	return c, err
}

// ListServices lists the services (id, name, price) and the parts (id,
// name, price).
func ListServices() (map[string]any, error) {
	s, err := sdk.Query("SELECT id, name, price FROM services ORDER BY price")
	if err != nil {
		return nil, err
	}
	p, err := sdk.Query("SELECT id, name, price FROM parts ORDER BY id")
	if err != nil {
		return nil, err
	}
	return map[string]any{"services": s, "parts": p}, nil
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListJobs lists a customer's jobs: job number, service, date, status,
// total, and the number of completed jobs.
func ListJobs(args CustomerArgs) (map[string]any, error) {
	if _, err := getCustomer(args.CustomerID); err != nil {
		return nil, err
	}
	jobs, err := sdk.Query("SELECT j.id AS job_id, s.name AS service, j.date, j.status, round((j.labour + COALESCE((SELECT SUM(quantity * price) FROM job_parts WHERE job_id = j.id), 0)) * (1 - j.discount_percent / 100.0), 2) AS total FROM jobs j JOIN services s ON s.id = j.service_id WHERE j.customer_id = ? ORDER BY j.date", args.CustomerID)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM jobs WHERE customer_id = ? AND status = 'completed'", args.CustomerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"customer_id": args.CustomerID, "jobs": jobs, "completed_jobs": n.Int("n")}, nil
}

// JobArgs name a job.
type JobArgs struct {
	// job number
	JobID string `json:"job_id"`
}

// GetJob returns one job with its parts, labour, discount and total.
func GetJob(args JobArgs) (map[string]any, error) {
	j, err := getJob(args.JobID)
	if err != nil {
		return nil, err
	}
	parts, err := sdk.Query("SELECT p.name AS part, jp.quantity, jp.price FROM job_parts jp JOIN parts p ON p.id = jp.part_id WHERE jp.job_id = ? ORDER BY jp.id", j.String("job_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"job_id": j.String("job_id"), "service": j.String("service"), "date": j.String("date"), "status": j.String("status"), "labour": j.Float("labour"), "parts": parts, "discount_percent": j.Float("discount_percent"), "total": j.Float("total")}, nil
}

// DateArgs name a date.
type DateArgs struct {
	// YYYY-MM-DD
	Date string `json:"date"`
}

// CheckCapacity says how many jobs the workshop takes on a date and how many
// places are left.
func CheckCapacity(args DateArgs) (map[string]any, error) {
	left, err := placesLeft(args.Date, "")
	if err != nil {
		return nil, err
	}
	return map[string]any{"date": strings.TrimSpace(args.Date), "places_left": left}, nil
}

// BookJobArgs are the arguments of book_job.
type BookJobArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// service id
	ServiceID string `json:"service_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// BookJob books a service on a date with room, with the loyalty discount
// (10%) when the customer has four completed jobs; a total over 150.00 awaits
// approval. It fails when the day is full or not after today.
func BookJob(args BookJobArgs) (map[string]any, error) {
	c, err := getCustomer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	s, err := sdk.QueryRow("SELECT id, price FROM services WHERE id = ?", strings.TrimSpace(args.ServiceID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no service %q", args.ServiceID)
	}
	if err != nil {
		return nil, err
	}
	if err := futureDay(args.Date); err != nil {
		return nil, err
	}
	left, err := placesLeft(args.Date, "")
	if err != nil {
		return nil, err
	}
	if left <= 0 {
		return nil, fmt.Errorf("the workshop is full on %s", strings.TrimSpace(args.Date))
	}
	done, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM jobs WHERE customer_id = ? AND status = 'completed'", c.String("id"))
	if err != nil {
		return nil, err
	}
	discount := 0.0
	if done.Int("n") >= loyaltyJobs {
		discount = loyaltyDiscount
	}
	status := "approved"
	if round2(s.Float("price")*(1-discount/100)) > approvalOver {
		status = "awaiting_approval"
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 3) AS INTEGER)), 300) + 1 AS n FROM jobs WHERE id LIKE 'J-%'")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("J-%d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO jobs (id, customer_id, service_id, date, status, labour, discount_percent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		id, c.String("id"), s.String("id"), strings.TrimSpace(args.Date), status, s.Float("price"), discount, sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	return GetJob(JobArgs{JobID: id})
}

// AddPartArgs are the arguments of add_part.
type AddPartArgs struct {
	// job number
	JobID string `json:"job_id"`
	// part id
	PartID string `json:"part_id"`
	// how many (default 1)
	Quantity int64 `json:"quantity,omitempty"`
}

// AddPart adds parts to a job not yet started; if the total goes over 150.00
// the job awaits approval.
func AddPart(args AddPartArgs) (map[string]any, error) {
	j, err := notStarted(args.JobID)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow("SELECT id, price FROM parts WHERE id = ?", strings.TrimSpace(args.PartID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no part %q", args.PartID)
	}
	if err != nil {
		return nil, err
	}
	qty := args.Quantity
	if qty == 0 {
		qty = 1
	}
	if qty < 0 {
		return nil, errors.New("quantity must be positive")
	}
	if _, err := sdk.Exec("INSERT INTO job_parts (job_id, part_id, quantity, price) VALUES (?, ?, ?, ?)", j.String("job_id"), p.String("id"), qty, p.Float("price")); err != nil {
		return nil, err
	}
	if err := needsApproval(j.String("job_id")); err != nil {
		return nil, err
	}
	return GetJob(JobArgs{JobID: j.String("job_id")})
}

// decide moves a job awaiting approval to a new status.
func decide(id, status string) (map[string]any, error) {
	j, err := getJob(id)
	if err != nil {
		return nil, err
	}
	if j.String("status") != "awaiting_approval" {
		return nil, fmt.Errorf("job %s is %s, not awaiting approval", j.String("job_id"), j.String("status"))
	}
	if _, err := sdk.Exec("UPDATE jobs SET status = ? WHERE id = ?", status, j.String("job_id")); err != nil {
		return nil, err
	}
	return GetJob(JobArgs{JobID: j.String("job_id")})
}

// ApproveQuote approves a job awaiting approval.
func ApproveQuote(args JobArgs) (map[string]any, error) { return decide(args.JobID, "approved") }

// DeclineQuote declines a job awaiting approval; no work is done.
func DeclineQuote(args JobArgs) (map[string]any, error) { return decide(args.JobID, "declined") }

// RescheduleJobArgs are the arguments of reschedule_job.
type RescheduleJobArgs struct {
	// job number
	JobID string `json:"job_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// RescheduleJob moves a job not yet started to another date with room.
func RescheduleJob(args RescheduleJobArgs) (map[string]any, error) {
	j, err := notStarted(args.JobID)
	if err != nil {
		return nil, err
	}
	if err := futureDay(args.Date); err != nil {
		return nil, err
	}
	left, err := placesLeft(args.Date, j.String("job_id"))
	if err != nil {
		return nil, err
	}
	if left <= 0 {
		return nil, fmt.Errorf("the workshop is full on %s", strings.TrimSpace(args.Date))
	}
	if _, err := sdk.Exec("UPDATE jobs SET date = ? WHERE id = ?", strings.TrimSpace(args.Date), j.String("job_id")); err != nil {
		return nil, err
	}
	return GetJob(JobArgs{JobID: j.String("job_id")})
}

// CancelJob cancels a job not yet started. It fails once work has started.
func CancelJob(args JobArgs) (map[string]any, error) {
	j, err := notStarted(args.JobID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE jobs SET status = 'cancelled' WHERE id = ?", j.String("job_id")); err != nil {
		return nil, err
	}
	return GetJob(JobArgs{JobID: j.String("job_id")})
}
