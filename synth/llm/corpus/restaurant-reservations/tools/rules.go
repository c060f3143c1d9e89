package tools

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// depositPerGuest is charged per guest for parties of more than depositFrom.
const (
	depositPerGuest = 10.0
	depositFrom     = 8
	refundHours     = 48
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// deposit is what a party of n pays.
func deposit(n int) float64 {
	if n > depositFrom {
		return depositPerGuest * float64(n)
	}
	return 0
}

func checkDate(s string) (string, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	return t.Format("2006-01-02"), nil
}

func checkTime(s string) (string, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("time %q is not in HH:MM form", s)
	}
	return t.Format("15:04"), nil
}

// hoursUntil is the time from the clock to a booking's date and time.
func hoursUntil(date, hm string) (float64, error) {
	t, err := time.Parse("2006-01-02 15:04", date+" "+hm)
	if err != nil {
		return 0, err
	}
	return t.Sub(sdk.Now().UTC()).Hours(), nil
}

// branch finds a branch by id or by name.
func branch(ref string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT id, name, max_party FROM branches WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(ref), strings.TrimSpace(ref))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no branch %q", ref)
	}
	return b, err
}

// seatsLeft is a slot's capacity minus its confirmed bookings' guests,
// not counting the booking except.
func seatsLeft(branchID, date, hm, except string) (int, error) {
	s, err := sdk.QueryRow("SELECT capacity FROM slots WHERE branch_id = ? AND date = ? AND time = ?", branchID, date, hm)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("there is no slot at %s on %s at %s", branchID, date, hm)
	}
	if err != nil {
		return 0, err
	}
	n, err := sdk.QueryRow("SELECT COALESCE(SUM(party_size), 0) AS n FROM bookings WHERE branch_id = ? AND date = ? AND time = ? AND status = 'confirmed' AND id <> ?", branchID, date, hm, except)
	if err != nil {
		return 0, err
	}
	return int(s.Int("capacity") - n.Int("n")), nil
}

func getGuest(id string) (sdk.Row, error) {
	g, err := sdk.QueryRow("SELECT id, name, phone FROM guests WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return g, fmt.Errorf("no guest with id %q", id)
	}
	return g, err
}

func getBooking(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT b.id AS reference, b.guest_id, b.branch_id, br.name AS branch, b.date, b.time, b.party_size, b.status, b.deposit_paid, b.deposit_refunded, COALESCE((SELECT m.name || ' x' || p.quantity FROM preorders p JOIN set_menus m ON m.id = p.menu_id WHERE p.booking_id = b.id), '') AS preorder FROM bookings b JOIN branches br ON br.id = b.branch_id WHERE b.id = ?",
		strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no booking %q", id)
	}
	return b, err
}

// confirmed returns a booking that is still confirmed.
func confirmed(id string) (sdk.Row, error) {
	b, err := getBooking(id)
	if err != nil {
		return b, err
	}
	if b.String("status") != "confirmed" {
		return b, fmt.Errorf("booking %s is %s", b.String("reference"), b.String("status"))
	}
	return b, nil
}

// nextReference is the next RB-NNNN booking reference.
func nextReference() (string, error) {
	r, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 1000) + 1 AS n FROM bookings WHERE id LIKE 'RB-%'")
	if err != nil {
		return "", err
	}
	return "RB-" + strconv.FormatInt(r.Int("n"), 10), nil
}
