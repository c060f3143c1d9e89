package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// list runs a query whose one column j is a JSON object per row and
// decodes the rows, in order, into out (a pointer to a slice).
func list(out any, query string, args ...any) error {
	row, err := sdk.QueryRow("SELECT COALESCE(json_group_array(json(j)), '[]') AS j FROM ("+query+")", args...)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(row.String("j")), out)
}

// money rounds an amount to cents.
func money(f float64) float64 { return math.Round(f*100) / 100 }

func memberRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, points FROM members WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no member with id %q", id)
	}
	return row, err
}

func screeningRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT s.id, s.film_id, s.screen_id, s.starts_at, s.format, s.adult_price, s.child_price,
		f.title, f.age_rating, f.min_age FROM screenings s JOIN films f ON f.id = s.film_id WHERE s.id = ?`, id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no screening with id %q", id)
	}
	return row, err
}

func startsAt(row sdk.Row) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, row.String("starts_at"))
	if err != nil {
		return time.Time{}, fmt.Errorf("screening %s has a bad start time", row.String("id"))
	}
	return t, nil
}

// seatTakenBy returns the booking that holds the seat at the screening (a
// booking that is not refunded), or 0 when the seat is free.
func seatTakenBy(screeningID, label string) (int64, error) {
	row, err := sdk.QueryRow(`SELECT b.id FROM booking_seats bs JOIN bookings b ON b.id = bs.booking_id
		WHERE b.screening_id = ? AND bs.seat_label = ? AND b.status = 'booked'`, screeningID, label)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return row.Int("id"), nil
}

func seatExists(screenID, label string) (bool, error) {
	_, err := sdk.QueryRow("SELECT label FROM seats WHERE screen_id = ? AND label = ?", screenID, label)
	if errors.Is(err, sdk.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func ownBooking(memberID string, bookingID int64) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, member_id, screening_id, status, payment, points_used FROM bookings WHERE id = ?", bookingID)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no booking %d", bookingID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if row.String("member_id") != memberID {
		return sdk.Row{}, fmt.Errorf("booking %d is not member %s's booking", bookingID, memberID)
	}
	return row, nil
}

func upper(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
