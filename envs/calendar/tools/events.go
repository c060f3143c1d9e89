package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListEvents lists the events a user organizes or is invited to that overlap a
// time range (at most 62 days), ordered by start time, with the user's own response.
func ListEvents(args ListEventsArgs) (sdk.Rows, error) {
	if _, err := getUser(args.UserID); err != nil {
		return sdk.Rows{}, err
	}
	s, e, err := parseRange(args.Start, args.End, 62*24*time.Hour)
	if err != nil {
		return sdk.Rows{}, err
	}
	statusFilter := "AND e.status <> 'cancelled'"
	if args.IncludeCancelled {
		statusFilter = ""
	}
	return sdk.Query(`SELECT e.event_id, e.title, e.start_at, e.end_at, e.status, e.organizer_id,
		a.response AS my_response, a.is_optional, e.location, e.series_id,
		(SELECT r.name FROM room_bookings b JOIN rooms r ON r.room_id = b.room_id
		  WHERE b.event_id = e.event_id AND b.status = 'active') AS room
		FROM events e JOIN attendees a ON a.event_id = e.event_id AND a.user_id = ?
		WHERE e.start_at < ? AND e.end_at > ? `+statusFilter+`
		ORDER BY e.start_at, e.event_id`, args.UserID, fmtTS(e), fmtTS(s))
}

// ListEventsArgs are the arguments of list_events.
type ListEventsArgs struct {
	// The user whose calendar to read.
	UserID string `json:"user_id"`
	// Start of the range, ISO-8601 UTC, e.g. "2024-06-03T00:00:00Z".
	Start string `json:"start"`
	// End of the range (exclusive), ISO-8601 UTC.
	End string `json:"end"`
	// Also list cancelled events.
	IncludeCancelled bool `json:"include_cancelled,omitempty"`
}

// GetEvent returns an event with its attendees and responses, room booking and reminders.
func GetEvent(args GetEventArgs) (map[string]any, error) {
	ev, err := getEvent(args.EventID)
	if err != nil {
		return nil, err
	}
	att, err := eventAttendees(args.EventID)
	if err != nil {
		return nil, err
	}
	rem, err := sdk.Query(`SELECT reminder_id, user_id, minutes_before, method FROM reminders WHERE event_id = ? ORDER BY user_id, method`, args.EventID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"event": ev, "attendees": att, "reminders": rem, "room": nil}
	if b, err := activeBooking(args.EventID); err == nil {
		out["room"] = b
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	return out, nil
}

// GetEventArgs are the arguments of get_event.
type GetEventArgs struct {
	// The event id, such as "ev-1012".
	EventID string `json:"event_id"`
}

// CreateEvent schedules a new meeting on the organizer's calendar. The organizer
// must be free and no attendee may be on time off; attendees' other meetings are
// reported as warnings. Optionally books a room in the same step.
func CreateEvent(args CreateEventArgs) (map[string]any, error) {
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
	calID, err := organizerCalendar(args.OrganizerID, args.CalendarID)
	if err != nil {
		return nil, err
	}
	invitees, err := checkInvitees(args.OrganizerID, args.AttendeeIDs, s, e)
	if err != nil {
		return nil, err
	}
	for _, o := range args.OptionalAttendeeIDs {
		if !slices.Contains(invitees, o) {
			return nil, fmt.Errorf("optional attendee %s must also be listed in attendee_ids", o)
		}
	}
	if c, err := busyConflicts(args.OrganizerID, s, e, ""); err != nil {
		return nil, err
	} else if c.Len() > 0 {
		return nil, conflictError(args.OrganizerID, c)
	}
	if err := checkNotOnTimeOff(args.OrganizerID, s, e); err != nil {
		return nil, err
	}
	if args.RoomID != "" {
		if err := checkRoomFits(args.RoomID, int64(len(invitees)+1), s, e, ""); err != nil {
			return nil, err
		}
	}
	warnings, err := attendeeWarnings(invitees, s, e, "")
	if err != nil {
		return nil, err
	}
	// All rules checked: write.
	id, err := insertEvent(calID, args.OrganizerID, title, args.Description, args.Location, s, e, nil)
	if err != nil {
		return nil, err
	}
	if err := insertAttendees(id, args.OrganizerID, invitees, args.OptionalAttendeeIDs); err != nil {
		return nil, err
	}
	if args.RoomID != "" {
		if _, err := insertBooking(args.RoomID, id, args.OrganizerID, s, e); err != nil {
			return nil, err
		}
	}
	out, err := GetEvent(GetEventArgs{EventID: id})
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out, nil
}

// CreateEventArgs are the arguments of create_event.
type CreateEventArgs struct {
	// The user who organizes the meeting (the requesting user).
	OrganizerID string `json:"organizer_id"`
	// Meeting title.
	Title string `json:"title"`
	// Start time, ISO-8601 UTC, e.g. "2024-06-05T14:00:00Z".
	Start string `json:"start"`
	// End time, ISO-8601 UTC; must be after start, at most 12 hours later.
	End string `json:"end"`
	// User ids to invite besides the organizer.
	AttendeeIDs []string `json:"attendee_ids,omitempty"`
	// Subset of attendee_ids whose attendance is optional.
	OptionalAttendeeIDs []string `json:"optional_attendee_ids,omitempty"`
	// Agenda or notes.
	Description string `json:"description,omitempty"`
	// Free-text location or video link (rooms are booked with room_id).
	Location string `json:"location,omitempty"`
	// A room to book for the meeting (must be free and large enough).
	RoomID string `json:"room_id,omitempty"`
	// One of the organizer's calendars; default is their primary calendar.
	CalendarID string `json:"calendar_id,omitempty"`
}

// UpdateEvent changes an upcoming event's title, description or location (organizer only).
func UpdateEvent(args UpdateEventArgs) (map[string]any, error) {
	if _, err := getModifiableEvent(args.EventID, args.UserID); err != nil {
		return nil, err
	}
	if args.Title == nil && args.Description == nil && args.Location == nil {
		return nil, fmt.Errorf("nothing to update: give title, description or location")
	}
	if args.Title != nil && strings.TrimSpace(*args.Title) == "" {
		return nil, fmt.Errorf("title cannot be empty")
	}
	if args.Title != nil {
		if _, err := sdk.Exec(`UPDATE events SET title = ? WHERE event_id = ?`, strings.TrimSpace(*args.Title), args.EventID); err != nil {
			return nil, err
		}
	}
	if args.Description != nil {
		if _, err := sdk.Exec(`UPDATE events SET description = ? WHERE event_id = ?`, *args.Description, args.EventID); err != nil {
			return nil, err
		}
	}
	if args.Location != nil {
		if _, err := sdk.Exec(`UPDATE events SET location = ? WHERE event_id = ?`, *args.Location, args.EventID); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE events SET updated_at = ? WHERE event_id = ?`, nowTS(), args.EventID); err != nil {
		return nil, err
	}
	return GetEvent(GetEventArgs{EventID: args.EventID})
}

// UpdateEventArgs are the arguments of update_event.
type UpdateEventArgs struct {
	// The event to change.
	EventID string `json:"event_id"`
	// The requesting user; must be the organizer.
	UserID string `json:"user_id"`
	// New title.
	Title *string `json:"title,omitempty"`
	// New description.
	Description *string `json:"description,omitempty"`
	// New free-text location.
	Location *string `json:"location,omitempty"`
}

// RescheduleEvent moves an upcoming event to a new time (organizer only). The
// organizer must be free, no attendee may be on time off, and a booked room
// must be free at the new time (it moves with the event). Every attendee but
// the organizer has to respond again.
func RescheduleEvent(args RescheduleEventArgs) (map[string]any, error) {
	ev, err := getModifiableEvent(args.EventID, args.UserID)
	if err != nil {
		return nil, err
	}
	s, e, err := parseFutureRange(args.Start, args.End)
	if err != nil {
		return nil, err
	}
	if fmtTS(s) == ev.String("start_at") && fmtTS(e) == ev.String("end_at") {
		return nil, fmt.Errorf("event %s is already at %s-%s", args.EventID, fmtTS(s), fmtTS(e))
	}
	if c, err := busyConflicts(args.UserID, s, e, args.EventID); err != nil {
		return nil, err
	} else if c.Len() > 0 {
		return nil, conflictError(args.UserID, c)
	}
	att, err := sdk.Query(`SELECT user_id FROM attendees WHERE event_id = ? AND response <> 'declined' ORDER BY user_id`, args.EventID)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, r := range att.All() {
		if err := checkNotOnTimeOff(r.String("user_id"), s, e); err != nil {
			return nil, err
		}
		if r.String("user_id") != args.UserID {
			others = append(others, r.String("user_id"))
		}
	}
	booking, err := activeBooking(args.EventID)
	hasRoom := err == nil
	if err != nil && err != sdk.ErrNoRows {
		return nil, err
	}
	if hasRoom {
		if t, err := roomTaken(booking.String("room_id"), s, e, booking.String("booking_id")); err == nil {
			return nil, fmt.Errorf("room %s (%s) is booked by %s at the new time; release the room or pick another time",
				booking.String("room_name"), booking.String("room_id"), t.String("event_id"))
		} else if err != sdk.ErrNoRows {
			return nil, err
		}
	}
	warnings, err := attendeeWarnings(others, s, e, args.EventID)
	if err != nil {
		return nil, err
	}
	now := nowTS()
	if _, err := sdk.Exec(`UPDATE events SET start_at = ?, end_at = ?, updated_at = ? WHERE event_id = ?`, fmtTS(s), fmtTS(e), now, args.EventID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE attendees SET response = 'needs_action', responded_at = NULL, comment = ''
		WHERE event_id = ? AND user_id <> ?`, args.EventID, args.UserID); err != nil {
		return nil, err
	}
	if hasRoom {
		if _, err := sdk.Exec(`UPDATE room_bookings SET start_at = ?, end_at = ? WHERE booking_id = ?`, fmtTS(s), fmtTS(e), booking.String("booking_id")); err != nil {
			return nil, err
		}
	}
	out, err := GetEvent(GetEventArgs{EventID: args.EventID})
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out, nil
}

// RescheduleEventArgs are the arguments of reschedule_event.
type RescheduleEventArgs struct {
	// The event to move.
	EventID string `json:"event_id"`
	// The requesting user; must be the organizer.
	UserID string `json:"user_id"`
	// New start, ISO-8601 UTC.
	Start string `json:"start"`
	// New end, ISO-8601 UTC.
	End string `json:"end"`
}

// CancelEvent cancels an upcoming event (organizer only) and releases its room.
func CancelEvent(args CancelEventArgs) (map[string]any, error) {
	if _, err := getModifiableEvent(args.EventID, args.UserID); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		return nil, fmt.Errorf("a reason is required to cancel an event")
	}
	now := nowTS()
	if _, err := sdk.Exec(`UPDATE events SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE event_id = ?`, reason, now, args.EventID); err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`UPDATE room_bookings SET status = 'released', released_at = ? WHERE event_id = ? AND status = 'active'`, now, args.EventID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"event_id": args.EventID, "status": "cancelled", "rooms_released": res.RowsAffected}, nil
}

// CancelEventArgs are the arguments of cancel_event.
type CancelEventArgs struct {
	// The event to cancel.
	EventID string `json:"event_id"`
	// The requesting user; must be the organizer.
	UserID string `json:"user_id"`
	// Why the event is cancelled (shown to attendees).
	Reason string `json:"reason"`
}

// organizerCalendar resolves the calendar a new event goes to.
func organizerCalendar(organizerID, calendarID string) (string, error) {
	if calendarID == "" {
		row, err := sdk.QueryRow(`SELECT calendar_id FROM calendars WHERE owner_id = ? AND is_primary = 1`, organizerID)
		if err == sdk.ErrNoRows {
			return "", fmt.Errorf("user %s has no primary calendar", organizerID)
		}
		return row.String("calendar_id"), err
	}
	row, err := sdk.QueryRow(`SELECT owner_id FROM calendars WHERE calendar_id = ?`, calendarID)
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("calendar %q not found", calendarID)
	} else if err != nil {
		return "", err
	}
	if row.String("owner_id") != organizerID {
		return "", fmt.Errorf("calendar %s does not belong to %s", calendarID, organizerID)
	}
	return calendarID, nil
}

// checkInvitees validates attendee ids (exist, distinct, not the organizer, not on time off).
func checkInvitees(organizerID string, ids []string, s, e time.Time) ([]string, error) {
	var out []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == organizerID {
			continue
		}
		if slices.Contains(out, id) {
			return nil, fmt.Errorf("attendee %s is listed twice", id)
		}
		if _, err := getUser(id); err != nil {
			return nil, err
		}
		if err := checkNotOnTimeOff(id, s, e); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// insertEvent writes an event row with a fresh id.
func insertEvent(calID, organizerID, title, desc, location string, s, e time.Time, seriesID any) (string, error) {
	id, err := nextID("event", "ev-")
	if err != nil {
		return "", err
	}
	now := nowTS()
	_, err = sdk.Exec(`INSERT INTO events (event_id, calendar_id, organizer_id, title, description, location, start_at, end_at,
		status, series_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?, ?, ?)`,
		id, calID, organizerID, title, desc, location, fmtTS(s), fmtTS(e), seriesID, now, now)
	return id, err
}

// insertAttendees adds the organizer (accepted) and the invitees (needs_action).
func insertAttendees(eventID, organizerID string, invitees, optional []string) error {
	now := nowTS()
	if _, err := sdk.Exec(`INSERT INTO attendees (event_id, user_id, response, is_optional, responded_at) VALUES (?, ?, 'accepted', 0, ?)`,
		eventID, organizerID, now); err != nil {
		return err
	}
	for _, u := range invitees {
		if _, err := sdk.Exec(`INSERT INTO attendees (event_id, user_id, response, is_optional) VALUES (?, ?, 'needs_action', ?)`,
			eventID, u, slices.Contains(optional, u)); err != nil {
			return err
		}
	}
	return nil
}
