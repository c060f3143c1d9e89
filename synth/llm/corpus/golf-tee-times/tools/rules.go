package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// buggyFee is the price of hiring a buggy for a booking.
const buggyFee = 30.0

// refundHours is how long before a tee time guest fees are still refunded.
const refundHours = 48

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func getMember(id string) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT id, name, email, membership FROM members WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no member with id %q", id)
	}
	return m, err
}

// teeTime returns a tee time with its course, guest fee and players booked.
func teeTime(id string) (sdk.Row, error) {
	t, err := sdk.QueryRow("SELECT t.id, t.course_id, c.name AS course, c.guest_fee, t.start, t.capacity, (SELECT COUNT(*) FROM booking_players p JOIN bookings b ON b.id = p.booking_id WHERE b.tee_time_id = t.id AND b.status = 'booked' AND p.removed = 0) AS players FROM tee_times t JOIN courses c ON c.id = t.course_id WHERE t.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return t, fmt.Errorf("no tee time with id %q", id)
	}
	return t, err
}

// bookable checks the rules a member's group must meet at a tee time:
// future, weekend mornings for full members only, one booking a day, room.
func bookable(member, tee sdk.Row, players int, except string) error {
	start, err := time.Parse(time.RFC3339, tee.String("start"))
	if err != nil {
		return err
	}
	if !start.After(sdk.Now()) {
		return fmt.Errorf("tee time %s has already started", tee.String("id"))
	}
	if wd := start.Weekday(); member.String("membership") == "weekday" && (wd == time.Saturday || wd == time.Sunday) && start.Hour() < 12 {
		return fmt.Errorf("weekday members cannot book %s tee times before 12:00", wd)
	}
	day := start.Format("2006-01-02")
	if _, err := sdk.QueryRow("SELECT b.id FROM bookings b JOIN tee_times t ON t.id = b.tee_time_id WHERE b.member_id = ? AND b.status = 'booked' AND substr(t.start, 1, 10) = ? AND b.id <> ?", member.String("id"), day, except); err == nil {
		return fmt.Errorf("%s already has a booking on %s", member.String("name"), day)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return err
	}
	left := int(tee.Int("capacity") - tee.Int("players"))
	if players > left {
		return fmt.Errorf("tee time %s has %d spaces left, too few for %d players", tee.String("id"), left, players)
	}
	return nil
}

// bookedBooking returns a booking that is still booked, with its tee time.
func bookedBooking(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT b.id, b.member_id, b.tee_time_id, b.status, t.start, t.course_id, c.guest_fee FROM bookings b JOIN tee_times t ON t.id = b.tee_time_id JOIN courses c ON c.id = t.course_id WHERE b.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no booking with id %q", id)
	}
	if err != nil {
		return b, err
	}
	if b.String("status") != "booked" {
		return b, fmt.Errorf("booking %s is %s", id, b.String("status"))
	}
	return b, nil
}

// hoursBefore is the time from the clock to a booking's tee time.
func hoursBefore(b sdk.Row) (float64, error) {
	start, err := time.Parse(time.RFC3339, b.String("start"))
	if err != nil {
		return 0, err
	}
	return start.Sub(sdk.Now()).Hours(), nil
}

// bookingView is a booking with its players and buggy hire.
func bookingView(id string) (map[string]any, error) {
	b, err := sdk.QueryRow("SELECT b.id, c.name AS course, t.start, b.status FROM bookings b JOIN tee_times t ON t.id = b.tee_time_id JOIN courses c ON c.id = t.course_id WHERE b.id = ?", id)
	if err != nil {
		return nil, err
	}
	players, err := sdk.Query("SELECT name, kind, fee, fee_status FROM booking_players WHERE booking_id = ? AND removed = 0 ORDER BY id", id)
	if err != nil {
		return nil, err
	}
	buggy := "none"
	if h, err := sdk.QueryRow("SELECT buggy_id, fee, status FROM buggy_hires WHERE booking_id = ? AND status <> 'cancelled'", id); err == nil {
		buggy = fmt.Sprintf("%s (%.2f, %s)", h.String("buggy_id"), h.Float("fee"), h.String("status"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "course": b.String("course"), "start": b.String("start"), "status": b.String("status"), "players": players, "buggy": buggy}, nil
}

func cleanName(s string) (string, error) {
	n := strings.Join(strings.Fields(s), " ")
	if n == "" {
		return "", errors.New("a guest needs a name")
	}
	return n, nil
}
