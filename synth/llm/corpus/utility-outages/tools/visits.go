package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListWindowsArgs name a date.
type ListWindowsArgs struct {
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

// ListWindows lists a date's technician windows and their places left.
func ListWindows(args ListWindowsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT window_date AS date, start_time, end_time, capacity - booked AS places_left FROM tech_windows WHERE window_date = ? ORDER BY start_time`, strings.TrimSpace(args.Date))
}

func openWindow(date, start string) (sdk.Row, error) {
	w, err := sdk.QueryRow(`SELECT id, window_date, start_time, end_time, capacity, booked FROM tech_windows WHERE window_date = ? AND start_time = ?`, strings.TrimSpace(date), strings.TrimSpace(start))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("there is no technician window on %s at %s", date, start)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if w.String("window_date") <= sdk.Now().UTC().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("technician visits are booked from tomorrow on")
	}
	if w.Int("booked") >= w.Int("capacity") {
		return sdk.Row{}, fmt.Errorf("the %s-%s window on %s is full", w.String("start_time"), w.String("end_time"), date)
	}
	return w, nil
}

// BookTechnicianArgs are the arguments of book_technician.
type BookTechnicianArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Window start time, 08:00 or 13:00.
	StartTime string `json:"start_time"`
}

// BookTechnician books a technician visit in a window with places left.
func BookTechnician(args BookTechnicianArgs) (map[string]any, error) {
	if err := accountExists(args.AccountID); err != nil {
		return nil, err
	}
	w, err := openWindow(args.Date, args.StartTime)
	if err != nil {
		return nil, err
	}
	id, err := nextID("tech_visits", "TV-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO tech_visits (id, account_id, window_id, status, created_at) VALUES (?, ?, ?, 'booked', ?)`, id, args.AccountID, w.String("id"), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE tech_windows SET booked = booked + 1 WHERE id = ?`, w.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": id, "date": w.String("window_date"), "window": w.String("start_time") + "-" + w.String("end_time"), "status": "booked"}, nil
}

// ListVisits lists the account's technician visits.
func ListVisits(args AccountArgs) (sdk.Rows, error) {
	if err := accountExists(args.AccountID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT v.id AS visit_id, w.window_date AS date, w.start_time, w.end_time, v.status FROM tech_visits v JOIN tech_windows w ON w.id = v.window_id
		WHERE v.account_id = ? ORDER BY w.window_date, w.start_time`, args.AccountID)
}

// MoveVisitArgs are the arguments of move_visit.
type MoveVisitArgs struct {
	// The verified account id.
	AccountID string `json:"account_id"`
	// Visit id such as TV-701.
	VisitID string `json:"visit_id"`
	// Date YYYY-MM-DD of the new window.
	Date string `json:"date"`
	// Start time of the new window, 08:00 or 13:00.
	StartTime string `json:"start_time"`
}

// MoveVisit moves a booked visit to another window with places left.
func MoveVisit(args MoveVisitArgs) (map[string]any, error) {
	if err := accountExists(args.AccountID); err != nil {
		return nil, err
	}
	v, err := sdk.QueryRow(`SELECT id, window_id, status FROM tech_visits WHERE id = ? AND account_id = ?`, strings.ToUpper(strings.TrimSpace(args.VisitID)), args.AccountID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("visit %q is not one of this account's visits", args.VisitID)
	}
	if err != nil {
		return nil, err
	}
	if v.String("status") != "booked" {
		return nil, fmt.Errorf("visit %s is %s", v.String("id"), v.String("status"))
	}
	w, err := openWindow(args.Date, args.StartTime)
	if err != nil {
		return nil, err
	}
	if w.String("id") == v.String("window_id") {
		return nil, fmt.Errorf("visit %s is already in that window", v.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE tech_visits SET window_id = ? WHERE id = ?`, w.String("id"), v.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE tech_windows SET booked = booked - 1 WHERE id = ?`, v.String("window_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE tech_windows SET booked = booked + 1 WHERE id = ?`, w.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"visit_id": v.String("id"), "date": w.String("window_date"), "window": w.String("start_time") + "-" + w.String("end_time"), "status": "booked"}, nil
}
