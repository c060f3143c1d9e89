package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// noticeDays is the notice a refund or a move needs.
const noticeDays = 7

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func parseDate(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	return t, nil
}

// today is the environment clock's date at midnight UTC.
func today() time.Time {
	n := sdk.Now().UTC()
	return time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
}

// daysAhead counts whole days from today to d.
func daysAhead(d time.Time) int {
	return int(d.Sub(today()).Hours() / 24)
}

// ageMonths is a child's age in whole months on a date.
func ageMonths(birth, on time.Time) int {
	m := (on.Year()-birth.Year())*12 + int(on.Month()) - int(birth.Month())
	if on.Day() < birth.Day() {
		m--
	}
	return m
}

// sessionDay checks a date a session may be booked on: a weekday after today.
func sessionDay(s string) (time.Time, error) {
	d, err := parseDate(s)
	if err != nil {
		return d, err
	}
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return d, fmt.Errorf("%s is a %s: sessions run Monday to Friday", s, wd)
	}
	if !d.After(today()) {
		return d, fmt.Errorf("%s is not after today", s)
	}
	return d, nil
}

func getChild(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, parent_id, name, birth_date FROM children WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no child with id %q", id)
	}
	return c, err
}

func getRoom(id string) (sdk.Row, error) {
	r, err := sdk.QueryRow("SELECT id, name, min_age_months, max_age_months, daily_fee, capacity FROM rooms WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return r, fmt.Errorf("no room with id %q", id)
	}
	return r, err
}

// fits fails when the child's age on the date is outside the room's range.
func fits(child, room sdk.Row, d time.Time) error {
	birth, err := parseDate(child.String("birth_date"))
	if err != nil {
		return err
	}
	age := ageMonths(birth, d)
	if age < int(room.Int("min_age_months")) || age > int(room.Int("max_age_months")) {
		return fmt.Errorf("%s is %d months old on %s; the %s takes children of %d to %d months", child.String("name"), age, d.Format("2006-01-02"),
			room.String("name"), room.Int("min_age_months"), room.Int("max_age_months"))
	}
	return nil
}

// placesLeft is a room's capacity minus its booked sessions on a date.
func placesLeft(room sdk.Row, date string) (int, error) {
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM sessions WHERE room_id = ? AND date = ? AND status = 'booked'", room.String("id"), date)
	if err != nil {
		return 0, err
	}
	return int(room.Int("capacity") - n.Int("n")), nil
}

// freeDay fails when the child already has a session (not cancelled) that day.
func freeDay(childID, date string, except int64) error {
	_, err := sdk.QueryRow("SELECT id FROM sessions WHERE child_id = ? AND date = ? AND status <> 'cancelled' AND id <> ?", childID, date, except)
	if err == nil {
		return fmt.Errorf("the child already has a session on %s", date)
	}
	if errors.Is(err, sdk.ErrNoRows) {
		return nil
	}
	return err
}

// recomputeWeek sets the sibling discount of a parent's booked sessions in
// the Monday-to-Friday week of d: 10% off each session of a child whose
// older sibling has a booked session that week.
func recomputeWeek(parentID string, d time.Time) error {
	monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	from, to := monday.Format("2006-01-02"), monday.AddDate(0, 0, 4).Format("2006-01-02")
	rows, err := sdk.Query("SELECT s.id, s.fee, c.birth_date, EXISTS (SELECT 1 FROM sessions s2 JOIN children c2 ON c2.id = s2.child_id WHERE c2.parent_id = c.parent_id AND c2.id <> c.id AND c2.birth_date < c.birth_date AND s2.status = 'booked' AND s2.date BETWEEN ? AND ?) AS older FROM sessions s JOIN children c ON c.id = s.child_id WHERE c.parent_id = ? AND s.status = 'booked' AND s.date BETWEEN ? AND ?",
		from, to, parentID, from, to)
	if err != nil {
		return err
	}
	for _, r := range rows.All() {
		discount := 0.0
		if r.Int("older") != 0 {
			discount = round2(r.Float("fee") * 0.10)
		}
		if _, err := sdk.Exec("UPDATE sessions SET discount = ? WHERE id = ?", discount, r.Int("id")); err != nil {
			return err
		}
	}
	return nil
}

func getSession(id int64) (sdk.Row, error) {
	s, err := sdk.QueryRow("SELECT s.id, s.child_id, c.name AS child, c.parent_id, s.room_id, s.date, s.status, s.fee, s.discount, s.refund FROM sessions s JOIN children c ON c.id = s.child_id WHERE s.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no session with id %d", id)
	}
	return s, err
}
