package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const rescheduleFee = 75.0

// today is the environment's date, YYYY-MM-DD.
func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// daysFromToday returns how many days date lies after today (negative: before).
func daysFromToday(date string) (int, error) {
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: use YYYY-MM-DD", date)
	}
	t, _ := time.Parse("2006-01-02", today())
	return int(math.Round(d.Sub(t).Hours() / 24)), nil
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func loadJob(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT * FROM jobs WHERE id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return row, fmt.Errorf("job %s not found", id)
	}
	return row, err
}

// bookedBeforeMove loads a job that must still be booked with its move date after today.
func bookedBeforeMove(id string) (sdk.Row, error) {
	j, err := loadJob(id)
	if err != nil {
		return j, err
	}
	if j.String("status") != "booked" {
		return j, fmt.Errorf("job %s is %s: only booked moves can be changed", id, j.String("status"))
	}
	days, err := daysFromToday(j.String("move_date"))
	if err != nil {
		return j, err
	}
	if days <= 0 {
		return j, fmt.Errorf("job %s moves on %s: it can no longer be changed", id, j.String("move_date"))
	}
	return j, nil
}

// firstFreeCrew returns the first crew (by id) free on date, ignoring the job being moved.
func firstFreeCrew(date, exceptJob string) (string, error) {
	row, err := sdk.QueryRow(`SELECT c.id FROM crews c
		WHERE c.id NOT IN (SELECT crew_id FROM crew_time_off WHERE day = ?)
		AND c.id NOT IN (SELECT crew_id FROM jobs WHERE move_date = ? AND status = 'booked' AND crew_id IS NOT NULL AND id <> ?)
		ORDER BY c.id LIMIT 1`, date, date, exceptJob)
	if errors.Is(err, sdk.ErrNoRows) {
		return "", fmt.Errorf("no crew is free on %s", date)
	}
	if err != nil {
		return "", err
	}
	return row.String("id"), nil
}

// reprice sets a job's price from its home size, distance, packing and boxes.
func reprice(id string) error {
	_, err := sdk.Exec(`UPDATE jobs SET price = ROUND(
		(SELECT r.base_price + r.per_km * jobs.distance_km + CASE WHEN jobs.packing = 1 THEN r.packing_price ELSE 0 END FROM home_rates r WHERE r.home_size = jobs.home_size)
		+ COALESCE((SELECT SUM(b.quantity * p.price) FROM job_boxes b JOIN box_prices p ON p.box_size = b.box_size WHERE b.job_id = jobs.id), 0), 2)
		WHERE id = ?`, id)
	return err
}

// jobView is a job as the tools report it.
func jobView(id string) (map[string]any, error) {
	j, err := loadJob(id)
	if err != nil {
		return nil, err
	}
	leader := ""
	if !j.IsNull("crew_id") {
		if c, err := sdk.QueryRow(`SELECT leader_name FROM crews WHERE id = ?`, j.String("crew_id")); err == nil {
			leader = c.String("leader_name")
		}
	}
	boxes, err := sdk.Query(`SELECT box_size, quantity FROM job_boxes WHERE job_id = ? AND quantity > 0 ORDER BY box_size`, id)
	if err != nil {
		return nil, err
	}
	items, err := sdk.Query(`SELECT id, name FROM inventory_items WHERE job_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	claims, err := sdk.Query(`SELECT id, item_id, amount, description, status, filed_at FROM damage_claims WHERE job_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	balance := 0.0
	if j.String("status") != "cancelled" {
		balance = round2(j.Float("price") + j.Float("fees") - j.Float("paid"))
	}
	completed := ""
	if !j.IsNull("completed_on") {
		completed = j.String("completed_on")
	}
	return map[string]any{
		"job_id":       j.String("id"),
		"customer_id":  j.String("customer_id"),
		"move_date":    j.String("move_date"),
		"status":       j.String("status"),
		"crew_id":      j.String("crew_id"),
		"crew_leader":  leader,
		"home_size":    j.String("home_size"),
		"distance_km":  j.Float("distance_km"),
		"packing":      j.Int("packing") == 1,
		"boxes":        boxes,
		"price":        j.Float("price"),
		"fees":         j.Float("fees"),
		"deposit":      j.Float("deposit"),
		"paid":         j.Float("paid"),
		"refunded":     j.Float("refunded"),
		"balance_due":  balance,
		"completed_on": completed,
		"inventory":    items,
		"claims":       claims,
	}, nil
}
