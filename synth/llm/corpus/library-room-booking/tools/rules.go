package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// Opening hours and booking limits of the study rooms.
const (
	openHour       = 8
	closeHour      = 22
	maxBookingHrs  = 3
	maxDailyHrs    = 4
	maxDaysAhead   = 7
	groupRoomSeats = 4
	minAttendees   = 2
)

// parseHour parses an ISO-8601 UTC time that must fall on the hour.
func parseHour(name, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an ISO-8601 time such as 2024-06-04T13:00:00Z", name, s)
	}
	t = t.UTC()
	if t.Minute() != 0 || t.Second() != 0 {
		return time.Time{}, fmt.Errorf("%s %s is not on the hour: rooms are booked in whole hours", name, s)
	}
	return t, nil
}

// checkPeriod checks a period is whole hours on one day within opening hours.
func checkPeriod(start, end time.Time) error {
	if !end.After(start) {
		return errors.New("the end must be after the start")
	}
	if start.Format("2006-01-02") != end.Add(-time.Hour).Format("2006-01-02") {
		return errors.New("a booking must start and end on the same day")
	}
	if start.Hour() < openHour || end.Hour() > closeHour || (end.Hour() == 0 && end.Day() != start.Day()) {
		return fmt.Errorf("rooms are open %02d:00-%02d:00", openHour, closeHour)
	}
	return nil
}

// checkBookable checks the rules every new or changed booking period obeys.
func checkBookable(start, end time.Time) error {
	if err := checkPeriod(start, end); err != nil {
		return err
	}
	if end.Sub(start) > maxBookingHrs*time.Hour {
		return fmt.Errorf("a booking may last at most %d hours", maxBookingHrs)
	}
	now := sdk.Now().UTC()
	if start.Before(now) {
		return errors.New("the booking would start in the past")
	}
	if start.After(now.Add(maxDaysAhead * 24 * time.Hour)) {
		return fmt.Errorf("bookings can start at most %d days ahead (until %s)", maxDaysAhead, now.Add(maxDaysAhead*24*time.Hour).Format(time.RFC3339))
	}
	return nil
}

// checkNotSuspended fails when the member's suspension has not ended.
func checkNotSuspended(memberID string) error {
	row, err := sdk.QueryRow("SELECT suspended_until FROM members WHERE id = ?", memberID)
	if errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("no member with id %q", memberID)
	}
	if err != nil {
		return err
	}
	if row.IsNull("suspended_until") {
		return nil
	}
	until := row.String("suspended_until")
	if until > sdk.Now().UTC().Format("2006-01-02") {
		return fmt.Errorf("the member is suspended until %s after 3 no-shows and cannot book, extend or move bookings", until)
	}
	return nil
}

// roomTaken reports whether another booked booking of the room overlaps the period.
func roomTaken(roomID string, start, end time.Time, exceptID string) (bool, error) {
	row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM bookings WHERE room_id = ? AND status = 'booked' AND start_at < ? AND end_at > ? AND id <> ?",
		roomID, end.Format(time.RFC3339), start.Format(time.RFC3339), exceptID)
	if err != nil {
		return false, err
	}
	return row.Int("n") > 0, nil
}

// bookedHours is the member's booked time on the day of start, leaving out one booking.
func bookedHours(memberID string, start time.Time, exceptID string) (float64, error) {
	row, err := sdk.QueryRow("SELECT COALESCE(SUM((julianday(end_at) - julianday(start_at)) * 24), 0) AS h FROM bookings WHERE member_id = ? AND status = 'booked' AND substr(start_at, 1, 10) = ? AND id <> ?",
		memberID, start.Format("2006-01-02"), exceptID)
	if err != nil {
		return 0, err
	}
	return row.Float("h"), nil
}

// checkDailyLimit fails when adding hours would take the member past the daily limit.
func checkDailyLimit(memberID string, start, end time.Time, exceptID string) error {
	have, err := bookedHours(memberID, start, exceptID)
	if err != nil {
		return err
	}
	add := end.Sub(start).Hours()
	if have+add > maxDailyHrs+0.01 {
		return fmt.Errorf("the member already has %.0f booked hours on %s; %.0f more would exceed the limit of %d hours per day", have, start.Format("2006-01-02"), add, maxDailyHrs)
	}
	return nil
}

// roomSeats returns a room's seats, failing for an unknown room.
func roomSeats(roomID string) (int64, error) {
	row, err := sdk.QueryRow("SELECT seats FROM rooms WHERE id = ?", roomID)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("no room with id %q", roomID)
	}
	if err != nil {
		return 0, err
	}
	return row.Int("seats"), nil
}
