package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindFreeSlots finds the windows on one day when every listed person is inside
// their working hours (UTC), not on time off and not in a meeting they have not
// declined, and that are at least duration_minutes long. Windows never start in
// the past. Pick a meeting time inside a returned window.
func FindFreeSlots(args FindFreeSlotsArgs) (map[string]any, error) {
	if len(args.UserIDs) == 0 || len(args.UserIDs) > 10 {
		return nil, fmt.Errorf("user_ids must list 1 to 10 people")
	}
	if args.DurationMinutes < 5 || args.DurationMinutes > 600 {
		return nil, fmt.Errorf("duration_minutes must be between 5 and 600")
	}
	day, err := parseDate("date", args.Date)
	if err != nil {
		return nil, err
	}
	wd := weekdayName(day)
	out := map[string]any{"date": day.Format(dateLayout), "weekday": wd, "duration_minutes": args.DurationMinutes}
	winStart, winEnd := day, day.Add(24*time.Hour)
	var notes []string
	var ids []string
	for _, u := range args.UserIDs {
		if slices.Contains(ids, u) {
			continue
		}
		ids = append(ids, u)
		if _, err := getUser(u); err != nil {
			return nil, err
		}
		wh, err := sdk.QueryRow(`SELECT start_time, end_time FROM working_hours WHERE user_id = ? AND weekday = ?`, u, wd)
		if err == sdk.ErrNoRows {
			notes = append(notes, fmt.Sprintf("%s does not work on %s", u, wd))
			continue
		} else if err != nil {
			return nil, err
		}
		s, _ := parseClock("start_time", wh.String("start_time"))
		e, _ := parseClock("end_time", wh.String("end_time"))
		winStart = later(winStart, day.Add(time.Duration(s)*time.Minute))
		winEnd = earlier(winEnd, day.Add(time.Duration(e)*time.Minute))
		off, err := timeOffDuring(u, day, day.Add(24*time.Hour))
		if err != nil {
			return nil, err
		}
		if off.Len() > 0 {
			notes = append(notes, fmt.Sprintf("%s is on time off (%s)", u, off.Row(0).String("request_id")))
		}
	}
	now := sdk.Now().UTC()
	if winStart.Before(now) {
		// Round up to the next quarter hour.
		winStart = now.Truncate(15 * time.Minute)
		if winStart.Before(now) {
			winStart = winStart.Add(15 * time.Minute)
		}
	}
	free := []any{}
	if len(notes) == 0 && winEnd.After(winStart) {
		type span struct{ s, e time.Time }
		var busy []span
		for _, u := range ids {
			c, err := busyConflicts(u, winStart, winEnd, "")
			if err != nil {
				return nil, err
			}
			for _, r := range c.All() {
				s, _ := time.Parse(time.RFC3339, r.String("start_at"))
				e, _ := time.Parse(time.RFC3339, r.String("end_at"))
				busy = append(busy, span{s, e})
			}
		}
		slices.SortFunc(busy, func(a, b span) int { return a.s.Compare(b.s) })
		cur := winStart
		emit := func(s, e time.Time) {
			if e.Sub(s) >= time.Duration(args.DurationMinutes)*time.Minute {
				free = append(free, map[string]any{"start": fmtTS(s), "end": fmtTS(e), "minutes": int64(e.Sub(s) / time.Minute)})
			}
		}
		for _, b := range busy {
			if b.s.After(cur) {
				emit(cur, earlier(b.s, winEnd))
			}
			cur = later(cur, b.e)
			if !cur.Before(winEnd) {
				break
			}
		}
		if cur.Before(winEnd) {
			emit(cur, winEnd)
		}
	}
	if len(notes) > 0 {
		out["notes"] = strings.Join(notes, "; ")
	} else {
		out["working_window"] = map[string]any{"start": fmtTS(winStart), "end": fmtTS(winEnd)}
	}
	out["free"] = free
	return out, nil
}

// FindFreeSlotsArgs are the arguments of find_free_slots.
type FindFreeSlotsArgs struct {
	// Everyone who must be free, organizer included.
	UserIDs []string `json:"user_ids"`
	// The day to search, "YYYY-MM-DD" (UTC).
	Date string `json:"date"`
	// The meeting length in minutes.
	DurationMinutes int `json:"duration_minutes"`
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
