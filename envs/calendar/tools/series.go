package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// CreateRecurringSeries schedules a recurring meeting: the first occurrence at
// start-end, then repeated daily (weekdays only), weekly or every two weeks.
// The organizer must be free and no attendee on time off for every occurrence.
func CreateRecurringSeries(args CreateRecurringSeriesArgs) (map[string]any, error) {
	title := strings.TrimSpace(args.Title)
	if title == "" {
		return nil, fmt.Errorf("title is required")
	}
	if _, err := getUser(args.OrganizerID); err != nil {
		return nil, err
	}
	s, e, err := parseFutureRange(args.Start, args.End)
	if err != nil {
		return nil, err
	}
	if args.Occurrences < 2 || args.Occurrences > 26 {
		return nil, fmt.Errorf("occurrences must be between 2 and 26")
	}
	var step int
	switch args.Frequency {
	case "daily":
		step = 1
		if wd := s.Weekday(); wd == time.Saturday || wd == time.Sunday {
			return nil, fmt.Errorf("a daily series must start on a weekday")
		}
	case "weekly":
		step = 7
	case "biweekly":
		step = 14
	default:
		return nil, fmt.Errorf("frequency %q must be daily, weekly or biweekly", args.Frequency)
	}
	calID, err := organizerCalendar(args.OrganizerID, "")
	if err != nil {
		return nil, err
	}
	// Occurrence start times.
	var starts []time.Time
	for t := s; len(starts) < args.Occurrences; t = t.AddDate(0, 0, step) {
		if wd := t.Weekday(); step == 1 && (wd == time.Saturday || wd == time.Sunday) {
			continue
		}
		starts = append(starts, t)
	}
	dur := e.Sub(s)
	var invitees []string
	var warnings []any
	for i, occ := range starts {
		oe := occ.Add(dur)
		inv, err := checkInvitees(args.OrganizerID, args.AttendeeIDs, occ, oe)
		if err != nil {
			return nil, fmt.Errorf("occurrence %d (%s): %v", i+1, occ.Format(dateLayout), err)
		}
		invitees = inv
		if c, err := busyConflicts(args.OrganizerID, occ, oe, ""); err != nil {
			return nil, err
		} else if c.Len() > 0 {
			return nil, fmt.Errorf("occurrence %d (%s): %v", i+1, occ.Format(dateLayout), conflictError(args.OrganizerID, c))
		}
		if err := checkNotOnTimeOff(args.OrganizerID, occ, oe); err != nil {
			return nil, fmt.Errorf("occurrence %d (%s): %v", i+1, occ.Format(dateLayout), err)
		}
		w, err := attendeeWarnings(inv, occ, oe, "")
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	// All rules checked: write.
	seriesID, err := nextID("series", "ser-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO recurring_series (series_id, organizer_id, calendar_id, title, frequency, first_start,
		duration_minutes, occurrences, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
		seriesID, args.OrganizerID, calID, title, args.Frequency, fmtTS(s), int64(dur/time.Minute), len(starts), nowTS()); err != nil {
		return nil, err
	}
	events := []any{}
	for _, occ := range starts {
		id, err := insertEvent(calID, args.OrganizerID, title, args.Description, args.Location, occ, occ.Add(dur), seriesID)
		if err != nil {
			return nil, err
		}
		if err := insertAttendees(id, args.OrganizerID, invitees, nil); err != nil {
			return nil, err
		}
		events = append(events, map[string]any{"event_id": id, "start_at": fmtTS(occ), "end_at": fmtTS(occ.Add(dur))})
	}
	out := map[string]any{"series_id": seriesID, "title": title, "frequency": args.Frequency, "events": events}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out, nil
}

// CreateRecurringSeriesArgs are the arguments of create_recurring_series.
type CreateRecurringSeriesArgs struct {
	// The user who organizes the series (the requesting user).
	OrganizerID string `json:"organizer_id"`
	// Meeting title.
	Title string `json:"title"`
	// Start of the first occurrence, ISO-8601 UTC.
	Start string `json:"start"`
	// End of the first occurrence, ISO-8601 UTC.
	End string `json:"end"`
	// How often it repeats; daily skips weekends.
	Frequency string `json:"frequency" enum:"daily,weekly,biweekly"`
	// Number of occurrences, 2 to 26.
	Occurrences int `json:"occurrences"`
	// User ids to invite besides the organizer.
	AttendeeIDs []string `json:"attendee_ids,omitempty"`
	// Agenda or notes.
	Description string `json:"description,omitempty"`
	// Free-text location or video link.
	Location string `json:"location,omitempty"`
}

// CancelSeries cancels the upcoming occurrences of a recurring series from a
// date on (organizer only), releasing their rooms. Past occurrences stay.
func CancelSeries(args CancelSeriesArgs) (map[string]any, error) {
	ser, err := sdk.QueryRow(`SELECT organizer_id, status FROM recurring_series WHERE series_id = ?`, args.SeriesID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("series %q not found", args.SeriesID)
	} else if err != nil {
		return nil, err
	}
	if ser.String("organizer_id") != args.UserID {
		return nil, fmt.Errorf("only the organizer (%s) can cancel series %s", ser.String("organizer_id"), args.SeriesID)
	}
	if ser.String("status") != "active" {
		return nil, fmt.Errorf("series %s is already %s", args.SeriesID, ser.String("status"))
	}
	from := nowTS()
	if args.FromDate != "" {
		d, err := parseDate("from_date", args.FromDate)
		if err != nil {
			return nil, err
		}
		if fmtTS(d) > from {
			from = fmtTS(d)
		}
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return nil, fmt.Errorf("a reason is required")
	}
	rows, err := sdk.Query(`SELECT event_id FROM events WHERE series_id = ? AND status = 'confirmed' AND start_at >= ? ORDER BY start_at`, args.SeriesID, from)
	if err != nil {
		return nil, err
	}
	if rows.Len() == 0 {
		return nil, fmt.Errorf("series %s has no upcoming occurrences from %s", args.SeriesID, from)
	}
	kept, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM events WHERE series_id = ? AND status = 'confirmed' AND start_at < ?`, args.SeriesID, from)
	if err != nil {
		return nil, err
	}
	now := nowTS()
	var ids []string
	for _, r := range rows.All() {
		id := r.String("event_id")
		if _, err := sdk.Exec(`UPDATE events SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE event_id = ?`, reason, now, id); err != nil {
			return nil, err
		}
		if _, err := sdk.Exec(`UPDATE room_bookings SET status = 'released', released_at = ? WHERE event_id = ? AND status = 'active'`, now, id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	status := "ended"
	if kept.Int("n") == 0 {
		status = "cancelled"
	}
	if _, err := sdk.Exec(`UPDATE recurring_series SET status = ? WHERE series_id = ?`, status, args.SeriesID); err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return map[string]any{"series_id": args.SeriesID, "status": status, "cancelled_event_ids": ids}, nil
}

// CancelSeriesArgs are the arguments of cancel_series.
type CancelSeriesArgs struct {
	// The series id, such as "ser-2".
	SeriesID string `json:"series_id"`
	// The requesting user; must be the series organizer.
	UserID string `json:"user_id"`
	// Cancel occurrences on or after this date, "YYYY-MM-DD" (default: all upcoming ones).
	FromDate string `json:"from_date,omitempty"`
	// Why the series is cancelled.
	Reason string `json:"reason"`
}
