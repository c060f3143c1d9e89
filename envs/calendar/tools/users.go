package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindUser looks people up by email address or by (part of) their name.
// Use it to identify the requesting user and anyone they mention.
func FindUser(args FindUserArgs) (sdk.Rows, error) {
	q := strings.TrimSpace(args.Query)
	if len(q) < 2 {
		return sdk.Rows{}, fmt.Errorf("query must have at least 2 characters")
	}
	rows, err := sdk.Query(`SELECT user_id, name, email, title, department FROM users
		WHERE lower(email) = lower(?) OR lower(name) LIKE '%' || lower(?) || '%'
		ORDER BY name LIMIT 20`, q, q)
	if err != nil {
		return rows, err
	}
	if rows.Len() == 0 {
		return rows, fmt.Errorf("no user matches %q", q)
	}
	return rows, nil
}

// FindUserArgs are the arguments of find_user.
type FindUserArgs struct {
	// An exact email address (e.g. "priya.raman@northwind.example") or part of a name (e.g. "Priya").
	Query string `json:"query"`
}

// GetUser returns a user's profile, calendars, working hours (UTC) and upcoming time off.
func GetUser(args GetUserArgs) (map[string]any, error) {
	u, err := getUser(args.UserID)
	if err != nil {
		return nil, err
	}
	cals, err := sdk.Query(`SELECT calendar_id, name, color, is_primary FROM calendars WHERE owner_id = ? ORDER BY is_primary DESC, calendar_id`, args.UserID)
	if err != nil {
		return nil, err
	}
	wh, err := sdk.Query(`SELECT weekday, start_time, end_time FROM working_hours WHERE user_id = ?
		ORDER BY CASE weekday WHEN 'monday' THEN 1 WHEN 'tuesday' THEN 2 WHEN 'wednesday' THEN 3
		WHEN 'thursday' THEN 4 WHEN 'friday' THEN 5 WHEN 'saturday' THEN 6 ELSE 7 END`, args.UserID)
	if err != nil {
		return nil, err
	}
	off, err := sdk.Query(`SELECT request_id, start_date, end_date, kind, status, note FROM time_off
		WHERE user_id = ? AND status = 'approved' AND end_date >= ? ORDER BY start_date`, args.UserID, today())
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"user":          u,
		"calendars":     cals,
		"working_hours": wh,
		"time_off":      off,
	}, nil
}

// GetUserArgs are the arguments of get_user.
type GetUserArgs struct {
	// The user's id, such as "u01".
	UserID string `json:"user_id"`
}

// SetWorkingHours sets a user's working hours (UTC) on the given weekdays,
// or marks those days as non-working. Other weekdays are left unchanged.
func SetWorkingHours(args SetWorkingHoursArgs) (map[string]any, error) {
	if _, err := getUser(args.UserID); err != nil {
		return nil, err
	}
	valid := []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	if len(args.Weekdays) == 0 {
		return nil, fmt.Errorf("weekdays must name at least one day")
	}
	days := make([]string, 0, len(args.Weekdays))
	for _, d := range args.Weekdays {
		d = strings.ToLower(strings.TrimSpace(d))
		if !slices.Contains(valid, d) {
			return nil, fmt.Errorf("weekday %q is not one of %s", d, strings.Join(valid, ", "))
		}
		if slices.Contains(days, d) {
			return nil, fmt.Errorf("weekday %q is listed twice", d)
		}
		days = append(days, d)
	}
	var start, end string
	if !args.DayOff {
		if args.StartTime == "" || args.EndTime == "" {
			return nil, fmt.Errorf("start_time and end_time are required unless day_off is true")
		}
		s, err := parseClock("start_time", args.StartTime)
		if err != nil {
			return nil, err
		}
		e, err := parseClock("end_time", args.EndTime)
		if err != nil {
			return nil, err
		}
		if e <= s {
			return nil, fmt.Errorf("end_time %s must be after start_time %s", args.EndTime, args.StartTime)
		}
		if e-s < 60 {
			return nil, fmt.Errorf("working hours must span at least one hour")
		}
		start = fmt.Sprintf("%02d:%02d", s/60, s%60)
		end = fmt.Sprintf("%02d:%02d", e/60, e%60)
	} else if args.StartTime != "" || args.EndTime != "" {
		return nil, fmt.Errorf("leave start_time and end_time empty when day_off is true")
	}
	for _, d := range days {
		if args.DayOff {
			if _, err := sdk.Exec(`DELETE FROM working_hours WHERE user_id = ? AND weekday = ?`, args.UserID, d); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := sdk.Exec(`INSERT INTO working_hours (user_id, weekday, start_time, end_time) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, weekday) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time`,
			args.UserID, d, start, end); err != nil {
			return nil, err
		}
	}
	u, err := GetUser(GetUserArgs{UserID: args.UserID})
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_id": args.UserID, "working_hours": u["working_hours"]}, nil
}

// SetWorkingHoursArgs are the arguments of set_working_hours.
type SetWorkingHoursArgs struct {
	// The user whose working hours change.
	UserID string `json:"user_id"`
	// Lower-case weekday names to change, e.g. ["monday", "friday"].
	Weekdays []string `json:"weekdays"`
	// Start of the working day in UTC, "HH:MM" (required unless day_off).
	StartTime string `json:"start_time,omitempty"`
	// End of the working day in UTC, "HH:MM" (required unless day_off).
	EndTime string `json:"end_time,omitempty"`
	// True to mark these weekdays as non-working days.
	DayOff bool `json:"day_off,omitempty"`
}
