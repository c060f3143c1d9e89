package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// AddAttendee invites one more person to an upcoming event (organizer only).
// The invitee may not be on time off, and a booked room must have a seat for them.
func AddAttendee(args AddAttendeeArgs) (map[string]any, error) {
	ev, err := getModifiableEvent(args.EventID, args.UserID)
	if err != nil {
		return nil, err
	}
	if _, err := getUser(args.AttendeeID); err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT 1 FROM attendees WHERE event_id = ? AND user_id = ?`, args.EventID, args.AttendeeID); err == nil {
		return nil, fmt.Errorf("%s is already invited to %s", args.AttendeeID, args.EventID)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	s, _ := parseTS("start", ev.String("start_at"))
	e, _ := parseTS("end", ev.String("end_at"))
	if err := checkNotOnTimeOff(args.AttendeeID, s, e); err != nil {
		return nil, err
	}
	if b, err := activeBooking(args.EventID); err == nil {
		n, err := headcount(args.EventID)
		if err != nil {
			return nil, err
		}
		if n+1 > b.Int("capacity") {
			return nil, fmt.Errorf("room %s (%s) seats %d and the event already has %d attendees; book a larger room first",
				b.String("room_name"), b.String("room_id"), b.Int("capacity"), n)
		}
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	warnings, err := attendeeWarnings([]string{args.AttendeeID}, s, e, args.EventID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO attendees (event_id, user_id, response, is_optional) VALUES (?, ?, 'needs_action', ?)`,
		args.EventID, args.AttendeeID, args.Optional); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE events SET updated_at = ? WHERE event_id = ?`, nowTS(), args.EventID); err != nil {
		return nil, err
	}
	out := map[string]any{"event_id": args.EventID, "added": args.AttendeeID, "optional": args.Optional}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out, nil
}

// AddAttendeeArgs are the arguments of add_attendee.
type AddAttendeeArgs struct {
	// The event to invite to.
	EventID string `json:"event_id"`
	// The requesting user; must be the event's organizer.
	UserID string `json:"user_id"`
	// The person to invite.
	AttendeeID string `json:"attendee_id"`
	// True if their attendance is optional.
	Optional bool `json:"optional,omitempty"`
}

// RemoveAttendee removes a person from an upcoming event's guest list (organizer only).
func RemoveAttendee(args RemoveAttendeeArgs) (map[string]any, error) {
	if _, err := getModifiableEvent(args.EventID, args.UserID); err != nil {
		return nil, err
	}
	if args.AttendeeID == args.UserID {
		return nil, fmt.Errorf("the organizer cannot be removed; cancel the event instead")
	}
	res, err := sdk.Exec(`DELETE FROM attendees WHERE event_id = ? AND user_id = ?`, args.EventID, args.AttendeeID)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("%s is not invited to %s", args.AttendeeID, args.EventID)
	}
	if _, err := sdk.Exec(`DELETE FROM reminders WHERE event_id = ? AND user_id = ?`, args.EventID, args.AttendeeID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE events SET updated_at = ? WHERE event_id = ?`, nowTS(), args.EventID); err != nil {
		return nil, err
	}
	return map[string]any{"event_id": args.EventID, "removed": args.AttendeeID}, nil
}

// RemoveAttendeeArgs are the arguments of remove_attendee.
type RemoveAttendeeArgs struct {
	// The event.
	EventID string `json:"event_id"`
	// The requesting user; must be the event's organizer.
	UserID string `json:"user_id"`
	// The person to remove.
	AttendeeID string `json:"attendee_id"`
}

// RespondToEvent records an invitee's RSVP to an upcoming event. Accepting
// reports the invitee's other meetings at that time as warnings.
func RespondToEvent(args RespondToEventArgs) (map[string]any, error) {
	ev, err := getEvent(args.EventID)
	if err != nil {
		return nil, err
	}
	if ev.String("status") == "cancelled" {
		return nil, fmt.Errorf("event %s is cancelled", args.EventID)
	}
	if ev.String("end_at") <= nowTS() {
		return nil, fmt.Errorf("event %s is already over", args.EventID)
	}
	att, err := sdk.QueryRow(`SELECT response FROM attendees WHERE event_id = ? AND user_id = ?`, args.EventID, args.UserID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("%s is not invited to %s", args.UserID, args.EventID)
	} else if err != nil {
		return nil, err
	}
	if args.UserID == ev.String("organizer_id") {
		return nil, fmt.Errorf("%s organizes %s; the organizer does not RSVP", args.UserID, args.EventID)
	}
	switch args.Response {
	case "accepted", "declined", "tentative":
	default:
		return nil, fmt.Errorf("response %q must be accepted, declined or tentative", args.Response)
	}
	var warnings []any
	if args.Response != "declined" {
		s, _ := parseTS("start", ev.String("start_at"))
		e, _ := parseTS("end", ev.String("end_at"))
		if warnings, err = attendeeWarnings([]string{args.UserID}, s, e, args.EventID); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE attendees SET response = ?, comment = ?, responded_at = ? WHERE event_id = ? AND user_id = ?`,
		args.Response, strings.TrimSpace(args.Comment), nowTS(), args.EventID, args.UserID); err != nil {
		return nil, err
	}
	out := map[string]any{"event_id": args.EventID, "user_id": args.UserID, "previous_response": att.String("response"), "response": args.Response}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out, nil
}

// RespondToEventArgs are the arguments of respond_to_event.
type RespondToEventArgs struct {
	// The event.
	EventID string `json:"event_id"`
	// The invitee who responds (the requesting user).
	UserID string `json:"user_id"`
	// The RSVP.
	Response string `json:"response" enum:"accepted,declined,tentative"`
	// Optional note to the organizer.
	Comment string `json:"comment,omitempty"`
}

// SetReminder sets the requesting user's reminder for an event they attend.
// There is at most one reminder per event, user and method; setting it again
// changes the lead time.
func SetReminder(args SetReminderArgs) (map[string]any, error) {
	ev, err := getEvent(args.EventID)
	if err != nil {
		return nil, err
	}
	if ev.String("status") == "cancelled" {
		return nil, fmt.Errorf("event %s is cancelled", args.EventID)
	}
	if ev.String("start_at") <= nowTS() {
		return nil, fmt.Errorf("event %s has already started", args.EventID)
	}
	if _, err := sdk.QueryRow(`SELECT 1 FROM attendees WHERE event_id = ? AND user_id = ?`, args.EventID, args.UserID); err == sdk.ErrNoRows {
		return nil, fmt.Errorf("%s is not invited to %s", args.UserID, args.EventID)
	} else if err != nil {
		return nil, err
	}
	if args.MinutesBefore < 0 || args.MinutesBefore > 7*24*60 {
		return nil, fmt.Errorf("minutes_before must be between 0 and 10080 (one week)")
	}
	if args.Method != "popup" && args.Method != "email" {
		return nil, fmt.Errorf("method %q must be popup or email", args.Method)
	}
	old, err := sdk.QueryRow(`SELECT reminder_id FROM reminders WHERE event_id = ? AND user_id = ? AND method = ?`, args.EventID, args.UserID, args.Method)
	if err == nil {
		if _, err := sdk.Exec(`UPDATE reminders SET minutes_before = ? WHERE reminder_id = ?`, args.MinutesBefore, old.String("reminder_id")); err != nil {
			return nil, err
		}
		return map[string]any{"reminder_id": old.String("reminder_id"), "event_id": args.EventID, "minutes_before": args.MinutesBefore, "method": args.Method, "updated": true}, nil
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	id, err := nextID("reminder", "rem-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO reminders (reminder_id, event_id, user_id, minutes_before, method, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, args.EventID, args.UserID, args.MinutesBefore, args.Method, nowTS()); err != nil {
		return nil, err
	}
	return map[string]any{"reminder_id": id, "event_id": args.EventID, "minutes_before": args.MinutesBefore, "method": args.Method, "updated": false}, nil
}

// SetReminderArgs are the arguments of set_reminder.
type SetReminderArgs struct {
	// The event.
	EventID string `json:"event_id"`
	// The attendee the reminder is for (the requesting user).
	UserID string `json:"user_id"`
	// How many minutes before the start to remind (0 to 10080).
	MinutesBefore int `json:"minutes_before"`
	// How to remind.
	Method string `json:"method" enum:"popup,email"`
}
