package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// Storage formats: every timestamp is UTC text, so string order is time order.
const (
	tsLayout   = "2006-01-02T15:04:05Z"
	dateLayout = "2006-01-02"
)

// nowTS is the episode clock as a stored timestamp.
func nowTS() string { return sdk.Now().UTC().Format(tsLayout) }

// today is the episode clock's date.
func today() string { return sdk.Now().UTC().Format(dateLayout) }

// parseTS parses an ISO-8601 timestamp (RFC 3339) and converts it to UTC.
func parseTS(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an ISO-8601 timestamp such as 2024-06-05T14:00:00Z", field, s)
	}
	t = t.UTC()
	if t.Second() != 0 || t.Nanosecond() != 0 {
		return time.Time{}, fmt.Errorf("%s %q must be on a whole minute", field, s)
	}
	return t, nil
}

// parseDate parses a YYYY-MM-DD date.
func parseDate(field, s string) (time.Time, error) {
	t, err := time.Parse(dateLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date such as 2024-06-05", field, s)
	}
	return t, nil
}

// parseRange parses and validates a start/end pair: end after start, at most maxDur.
func parseRange(start, end string, maxDur time.Duration) (time.Time, time.Time, error) {
	s, err := parseTS("start", start)
	if err != nil {
		return s, s, err
	}
	e, err := parseTS("end", end)
	if err != nil {
		return s, e, err
	}
	if !e.After(s) {
		return s, e, fmt.Errorf("end %s must be after start %s", fmtTS(e), fmtTS(s))
	}
	if e.Sub(s) > maxDur {
		return s, e, fmt.Errorf("the time range is longer than the %s allowed", maxDur)
	}
	return s, e, nil
}

// parseFutureRange is parseRange for a new meeting time: at most 12 hours and not in the past.
func parseFutureRange(start, end string) (time.Time, time.Time, error) {
	s, e, err := parseRange(start, end, 12*time.Hour)
	if err != nil {
		return s, e, err
	}
	if s.Before(sdk.Now().UTC()) {
		return s, e, fmt.Errorf("start %s is in the past (now is %s)", fmtTS(s), nowTS())
	}
	return s, e, nil
}

func fmtTS(t time.Time) string { return t.UTC().Format(tsLayout) }

// parseClock parses an HH:MM clock time and returns minutes since midnight.
func parseClock(field, s string) (int, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a time of day such as 09:00", field, s)
	}
	return t.Hour()*60 + t.Minute(), nil
}

// weekdayName is the lower-case English weekday, as stored in working_hours.
func weekdayName(t time.Time) string { return strings.ToLower(t.Weekday().String()) }

// nextID takes the next value of a counter and formats it with prefix.
// Call it only after every rule has been checked.
func nextID(counter, prefix string) (string, error) {
	row, err := sdk.QueryRow(`SELECT next_value FROM counters WHERE name = ?`, counter)
	if err != nil {
		return "", fmt.Errorf("counter %s: %v", counter, err)
	}
	n := row.Int("next_value")
	if _, err := sdk.Exec(`UPDATE counters SET next_value = next_value + 1 WHERE name = ?`, counter); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s%d", prefix, n), nil
}

// getUser loads a user or fails with a clear message.
func getUser(userID string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT user_id, name, email, title, department, manager_id FROM users WHERE user_id = ?`, userID)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("user %q not found", userID)
	}
	return row, err
}

// getEvent loads an event or fails with a clear message.
func getEvent(eventID string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT event_id, calendar_id, organizer_id, title, description, location, start_at, end_at,
		status, cancel_reason, series_id, created_at, updated_at FROM events WHERE event_id = ?`, eventID)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("event %q not found", eventID)
	}
	return row, err
}

// getModifiableEvent loads an event that userID organizes and that is still upcoming.
func getModifiableEvent(eventID, userID string) (sdk.Row, error) {
	ev, err := getEvent(eventID)
	if err != nil {
		return ev, err
	}
	if ev.String("organizer_id") != userID {
		return ev, fmt.Errorf("only the organizer (%s) can change event %s", ev.String("organizer_id"), eventID)
	}
	if ev.String("status") == "cancelled" {
		return ev, fmt.Errorf("event %s is cancelled", eventID)
	}
	if ev.String("start_at") < nowTS() {
		return ev, fmt.Errorf("event %s already started at %s and can no longer be changed", eventID, ev.String("start_at"))
	}
	return ev, nil
}

// busyConflicts lists the non-cancelled events userID attends (not declined)
// that overlap [start, end), other than exceptEvent.
func busyConflicts(userID string, start, end time.Time, exceptEvent string) (sdk.Rows, error) {
	return sdk.Query(`SELECT e.event_id, e.title, e.start_at, e.end_at
		FROM events e JOIN attendees a ON a.event_id = e.event_id
		WHERE a.user_id = ? AND a.response <> 'declined' AND e.status <> 'cancelled'
		  AND e.start_at < ? AND e.end_at > ? AND e.event_id <> ?
		ORDER BY e.start_at, e.event_id`, userID, fmtTS(end), fmtTS(start), exceptEvent)
}

// timeOffDuring lists userID's approved time off overlapping [start, end).
func timeOffDuring(userID string, start, end time.Time) (sdk.Rows, error) {
	return sdk.Query(`SELECT request_id, start_date, end_date, kind FROM time_off
		WHERE user_id = ? AND status = 'approved' AND start_date <= ? AND end_date >= ?
		ORDER BY start_date`, userID, end.Add(-time.Second).Format(dateLayout), start.Format(dateLayout))
}

// checkNotOnTimeOff fails if userID has approved time off during [start, end).
func checkNotOnTimeOff(userID string, start, end time.Time) error {
	off, err := timeOffDuring(userID, start, end)
	if err != nil {
		return err
	}
	if off.Len() > 0 {
		r := off.Row(0)
		return fmt.Errorf("%s is on time off from %s to %s (%s)", userID, r.String("start_date"), r.String("end_date"), r.String("request_id"))
	}
	return nil
}

// conflictError formats the organizer's conflicts.
func conflictError(userID string, c sdk.Rows) error {
	parts := make([]string, 0, c.Len())
	for _, r := range c.All() {
		parts = append(parts, fmt.Sprintf("%s %q %s-%s", r.String("event_id"), r.String("title"), r.String("start_at"), r.String("end_at")))
	}
	return fmt.Errorf("%s is already busy at that time: %s", userID, strings.Join(parts, "; "))
}

// headcount is the number of attendees who have not declined (organizer included).
func headcount(eventID string) (int64, error) {
	row, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM attendees WHERE event_id = ? AND response <> 'declined'`, eventID)
	if err != nil {
		return 0, err
	}
	return row.Int("n"), nil
}

// activeBooking returns the event's active room booking joined with the room.
func activeBooking(eventID string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT b.booking_id, b.room_id, r.name AS room_name, r.capacity, b.start_at, b.end_at
		FROM room_bookings b JOIN rooms r ON r.room_id = b.room_id
		WHERE b.event_id = ? AND b.status = 'active'`, eventID)
}

// roomTaken returns an active booking of roomID overlapping [start, end), other than exceptBooking.
func roomTaken(roomID string, start, end time.Time, exceptBooking string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT booking_id, event_id, start_at, end_at FROM room_bookings
		WHERE room_id = ? AND status = 'active' AND start_at < ? AND end_at > ? AND booking_id <> ?`,
		roomID, fmtTS(end), fmtTS(start), exceptBooking)
}

// attendeeWarnings lists, for each non-organizer attendee, their other commitments.
func attendeeWarnings(userIDs []string, start, end time.Time, exceptEvent string) ([]any, error) {
	var out []any
	for _, u := range userIDs {
		c, err := busyConflicts(u, start, end, exceptEvent)
		if err != nil {
			return nil, err
		}
		for _, r := range c.All() {
			out = append(out, fmt.Sprintf("%s is also attending %s %q (%s-%s)", u, r.String("event_id"), r.String("title"), r.String("start_at"), r.String("end_at")))
		}
	}
	return out, nil
}

// eventAttendees lists an event's attendees with names.
func eventAttendees(eventID string) (sdk.Rows, error) {
	return sdk.Query(`SELECT a.user_id, u.name, u.email, a.response, a.is_optional, a.comment
		FROM attendees a JOIN users u ON u.user_id = a.user_id
		WHERE a.event_id = ? ORDER BY u.name`, eventID)
}
