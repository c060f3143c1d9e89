package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// RequestTimeOff records time off (approved immediately) for whole days, from
// start_date to end_date inclusive. It does not touch existing meetings: the
// result lists the meetings during the time off so they can be declined or moved.
func RequestTimeOff(args RequestTimeOffArgs) (map[string]any, error) {
	if _, err := getUser(args.UserID); err != nil {
		return nil, err
	}
	s, err := parseDate("start_date", args.StartDate)
	if err != nil {
		return nil, err
	}
	e, err := parseDate("end_date", args.EndDate)
	if err != nil {
		return nil, err
	}
	if e.Before(s) {
		return nil, fmt.Errorf("end_date %s is before start_date %s", args.EndDate, args.StartDate)
	}
	if s.Format(dateLayout) < today() {
		return nil, fmt.Errorf("start_date %s is in the past (today is %s)", s.Format(dateLayout), today())
	}
	if e.Sub(s) >= 30*24*time.Hour {
		return nil, fmt.Errorf("time off is limited to 30 days per request")
	}
	switch args.Kind {
	case "vacation", "sick", "personal":
	default:
		return nil, fmt.Errorf("kind %q must be vacation, sick or personal", args.Kind)
	}
	end := e.Add(24 * time.Hour)
	if off, err := timeOffDuring(args.UserID, s, end); err != nil {
		return nil, err
	} else if off.Len() > 0 {
		r := off.Row(0)
		return nil, fmt.Errorf("overlaps existing time off %s (%s to %s)", r.String("request_id"), r.String("start_date"), r.String("end_date"))
	}
	meetings, err := busyConflicts(args.UserID, s, end, "")
	if err != nil {
		return nil, err
	}
	id, err := nextID("time_off", "to-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO time_off (request_id, user_id, start_date, end_date, kind, status, note, created_at)
		VALUES (?, ?, ?, ?, ?, 'approved', ?, ?)`, id, args.UserID, s.Format(dateLayout), e.Format(dateLayout), args.Kind,
		strings.TrimSpace(args.Note), nowTS()); err != nil {
		return nil, err
	}
	return map[string]any{
		"request_id":      id,
		"status":          "approved",
		"start_date":      s.Format(dateLayout),
		"end_date":        e.Format(dateLayout),
		"meetings_during": meetings,
	}, nil
}

// RequestTimeOffArgs are the arguments of request_time_off.
type RequestTimeOffArgs struct {
	// The user taking time off (the requesting user).
	UserID string `json:"user_id"`
	// First day off, "YYYY-MM-DD".
	StartDate string `json:"start_date"`
	// Last day off (inclusive), "YYYY-MM-DD".
	EndDate string `json:"end_date"`
	// The kind of absence.
	Kind string `json:"kind" enum:"vacation,sick,personal"`
	// Optional note for the manager.
	Note string `json:"note,omitempty"`
}

// CancelTimeOff withdraws one of the requesting user's time-off entries that has not ended yet.
func CancelTimeOff(args CancelTimeOffArgs) (map[string]any, error) {
	row, err := sdk.QueryRow(`SELECT user_id, status, start_date, end_date FROM time_off WHERE request_id = ?`, args.RequestID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("time-off request %q not found", args.RequestID)
	} else if err != nil {
		return nil, err
	}
	if row.String("user_id") != args.UserID {
		return nil, fmt.Errorf("time-off request %s belongs to %s", args.RequestID, row.String("user_id"))
	}
	if row.String("status") != "approved" {
		return nil, fmt.Errorf("time-off request %s is already %s", args.RequestID, row.String("status"))
	}
	if row.String("end_date") < today() {
		return nil, fmt.Errorf("time-off request %s ended on %s and cannot be cancelled", args.RequestID, row.String("end_date"))
	}
	if _, err := sdk.Exec(`UPDATE time_off SET status = 'cancelled' WHERE request_id = ?`, args.RequestID); err != nil {
		return nil, err
	}
	return map[string]any{"request_id": args.RequestID, "status": "cancelled", "start_date": row.String("start_date"), "end_date": row.String("end_date")}, nil
}

// CancelTimeOffArgs are the arguments of cancel_time_off.
type CancelTimeOffArgs struct {
	// The time-off request id, such as "to-4003".
	RequestID string `json:"request_id"`
	// The requesting user; must own the request.
	UserID string `json:"user_id"`
}

// ListTimeOff lists approved time off overlapping a date range, for the given
// people or for everyone.
func ListTimeOff(args ListTimeOffArgs) (sdk.Rows, error) {
	s, err := parseDate("start_date", args.StartDate)
	if err != nil {
		return sdk.Rows{}, err
	}
	e, err := parseDate("end_date", args.EndDate)
	if err != nil {
		return sdk.Rows{}, err
	}
	if e.Before(s) {
		return sdk.Rows{}, fmt.Errorf("end_date %s is before start_date %s", args.EndDate, args.StartDate)
	}
	ids := "[]"
	if len(args.UserIDs) > 0 {
		js, err := sdk.JSON(args.UserIDs)
		if err != nil {
			return sdk.Rows{}, err
		}
		ids = js
	}
	return sdk.Query(`SELECT t.request_id, t.user_id, u.name, t.start_date, t.end_date, t.kind
		FROM time_off t JOIN users u ON u.user_id = t.user_id
		WHERE t.status = 'approved' AND t.start_date <= ? AND t.end_date >= ?
		  AND (json_array_length(?) = 0 OR t.user_id IN (SELECT value FROM json_each(?)))
		ORDER BY t.start_date, t.user_id`, e.Format(dateLayout), s.Format(dateLayout), ids, ids)
}

// ListTimeOffArgs are the arguments of list_time_off.
type ListTimeOffArgs struct {
	// First day of the range, "YYYY-MM-DD".
	StartDate string `json:"start_date"`
	// Last day of the range (inclusive), "YYYY-MM-DD".
	EndDate string `json:"end_date"`
	// Only these people (default: everyone).
	UserIDs []string `json:"user_ids,omitempty"`
}
