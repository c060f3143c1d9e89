package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// freeCancelHours is how long before a booking a cancellation is refunded in full.
const freeCancelHours = 72

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func stamp() string { return sdk.Now().UTC().Format("2006-01-02T15:04:05Z") }

func getRoom(id string) (sdk.Row, error) {
	r, err := sdk.QueryRow("SELECT id, name, min_players, max_players, price FROM rooms WHERE id = ?", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return r, fmt.Errorf("no room with id %q", id)
	}
	return r, err
}

func getCustomer(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name FROM customers WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer with id %q", id)
	}
	return c, err
}

// groupFits checks the room's players and the adult rule.
func groupFits(room sdk.Row, adults, children int64) error {
	if adults < 0 || children < 0 {
		return errors.New("players cannot be negative")
	}
	if children > 0 && adults < 1 {
		return errors.New("a group with children under 16 must include at least one adult")
	}
	n := adults + children
	if n < room.Int("min_players") || n > room.Int("max_players") {
		return fmt.Errorf("%s takes %d to %d players, not %d", room.String("name"), room.Int("min_players"), room.Int("max_players"), n)
	}
	return nil
}

// openSlot returns an open slot of a room at a date and time in the future.
func openSlot(roomID, date, hm string) (sdk.Row, error) {
	s, err := sdk.QueryRow("SELECT id, status FROM slots WHERE room_id = ? AND date = ? AND time = ?", roomID, strings.TrimSpace(date), strings.TrimSpace(hm))
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("room %s has no session on %s at %s", roomID, date, hm)
	}
	if err != nil {
		return s, err
	}
	if s.String("status") != "open" {
		return s, fmt.Errorf("room %s is already booked on %s at %s", roomID, date, hm)
	}
	h, err := hoursUntil(date, hm)
	if err != nil {
		return s, err
	}
	if h <= 0 {
		return s, fmt.Errorf("%s %s is in the past", date, hm)
	}
	return s, nil
}

func hoursUntil(date, hm string) (float64, error) {
	t, err := time.Parse("2006-01-02 15:04", strings.TrimSpace(date)+" "+strings.TrimSpace(hm))
	if err != nil {
		return 0, fmt.Errorf("bad date or time %q %q", date, hm)
	}
	return t.Sub(sdk.Now().UTC()).Hours(), nil
}

func getBooking(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT b.id, b.customer_id, b.room_id, r.name AS room, b.date, b.time, b.adults, b.children, b.adults + b.children AS players, b.status, b.paid, b.refunded, COALESCE((SELECT group_concat(extra, ',') FROM (SELECT extra FROM booking_extras WHERE booking_id = b.id ORDER BY extra)), '') AS extras FROM bookings b JOIN rooms r ON r.id = b.room_id WHERE b.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no booking %q", id)
	}
	return b, err
}

func activeBooking(id string) (sdk.Row, error) {
	b, err := getBooking(id)
	if err != nil {
		return b, err
	}
	if b.String("status") != "booked" {
		return b, fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	return b, nil
}
