package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	approvalOver    = 150.0
	loyaltyJobs     = 4
	loyaltyDiscount = 10.0
	activeStatuses  = "('awaiting_approval', 'approved', 'in_progress')"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func getCustomer(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name FROM customers WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer with id %q", id)
	}
	return c, err
}

// getJob returns a job with its parts total and total.
func getJob(id string) (sdk.Row, error) {
	j, err := sdk.QueryRow("SELECT j.id AS job_id, j.customer_id, s.name AS service, j.date, j.status, j.labour, COALESCE((SELECT SUM(quantity * price) FROM job_parts WHERE job_id = j.id), 0) AS parts, j.discount_percent, round((j.labour + COALESCE((SELECT SUM(quantity * price) FROM job_parts WHERE job_id = j.id), 0)) * (1 - j.discount_percent / 100.0), 2) AS total FROM jobs j JOIN services s ON s.id = j.service_id WHERE j.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return j, fmt.Errorf("no job %q", id)
	}
	return j, err
}

// notStarted returns a job still approved or awaiting approval.
func notStarted(id string) (sdk.Row, error) {
	j, err := getJob(id)
	if err != nil {
		return j, err
	}
	if s := j.String("status"); s != "approved" && s != "awaiting_approval" {
		return j, fmt.Errorf("job %s is %s", j.String("job_id"), s)
	}
	return j, nil
}

// placesLeft is a workshop day's capacity minus its active jobs (except one).
func placesLeft(date, except string) (int64, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(date))
	if err != nil {
		return 0, fmt.Errorf("date %q is not in YYYY-MM-DD form", date)
	}
	day := d.Format("2006-01-02")
	w, err := sdk.QueryRow("SELECT capacity FROM workshop_days WHERE date = ?", day)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("the workshop is closed on %s", day)
	}
	if err != nil {
		return 0, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM jobs WHERE date = ? AND status IN "+activeStatuses+" AND id <> ?", day, except)
	if err != nil {
		return 0, err
	}
	return w.Int("capacity") - n.Int("n"), nil
}

// futureDay fails unless the date is after today.
func futureDay(date string) error {
	if strings.TrimSpace(date) <= sdk.Now().UTC().Format("2006-01-02") {
		return fmt.Errorf("%s is not after today", date)
	}
	return nil
}

// needsApproval sets a not-started job's status from its total.
func needsApproval(id string) error {
	j, err := getJob(id)
	if err != nil {
		return err
	}
	if j.String("status") == "approved" && j.Float("total") > approvalOver {
		_, err = sdk.Exec("UPDATE jobs SET status = 'awaiting_approval' WHERE id = ?", j.String("job_id"))
	}
	return err
}
