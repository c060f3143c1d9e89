package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListRoomsArgs name a hall and a term.
type ListRoomsArgs struct {
	// The hall's name, such as Maple Hall.
	HallName string `json:"hall_name"`
	// The term's name, such as Autumn 2024.
	TermName string `json:"term_name"`
	// Only rooms of this type: single, double or ensuite.
	RoomType *string `json:"room_type,omitempty"`
	// Only rooms free for the term.
	FreeOnly *bool `json:"free_only,omitempty"`
}

// ListRooms lists a hall's rooms and whether each is free for a term.
func ListRooms(args ListRoomsArgs) (map[string]any, error) {
	h, err := hallByName(args.HallName)
	if err != nil {
		return nil, err
	}
	t, err := termByName(args.TermName)
	if err != nil {
		return nil, err
	}
	q := `SELECT r.id AS room_id, r.room_type, r.rent_per_term,
		NOT EXISTS (SELECT 1 FROM allocations a WHERE a.room_id = r.id AND a.term_id = ? AND a.status = 'active') AS free
		FROM rooms r WHERE r.hall_id = ?`
	params := []any{t.String("id"), h.String("id")}
	if args.RoomType != nil && *args.RoomType != "" {
		q += ` AND r.room_type = ?`
		params = append(params, strings.ToLower(strings.TrimSpace(*args.RoomType)))
	}
	if args.FreeOnly != nil && *args.FreeOnly {
		q = `SELECT * FROM (` + q + `) WHERE free = 1`
	}
	rows, err := sdk.Query(q+` ORDER BY room_id`, params...)
	if err != nil {
		return nil, err
	}
	return map[string]any{"hall": h.String("name"), "term": t.String("name"), "rooms": rows, "count": rows.Len()}, nil
}

// ApplyForRoomArgs describe a room application.
type ApplyForRoomArgs struct {
	// The student's id.
	StudentID string `json:"student_id"`
	// The hall's name.
	HallName string `json:"hall_name"`
	// single, double or ensuite.
	RoomType string `json:"room_type"`
	// The term's name.
	TermName string `json:"term_name"`
}

// ApplyForRoom allocates the lowest-numbered free room of a type in a hall.
func ApplyForRoom(args ApplyForRoomArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	h, err := hallByName(args.HallName)
	if err != nil {
		return nil, err
	}
	t, err := futureTerm(args.TermName)
	if err != nil {
		return nil, err
	}
	if err := noActiveRoom(args.StudentID, t); err != nil {
		return nil, err
	}
	typ := strings.ToLower(strings.TrimSpace(args.RoomType))
	r, err := sdk.QueryRow(`SELECT r.id, r.rent_per_term FROM rooms r WHERE r.hall_id = ? AND r.room_type = ?
		AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.room_id = r.id AND a.term_id = ? AND a.status = 'active') ORDER BY r.id LIMIT 1`,
		h.String("id"), typ, t.String("id"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("%s has no free %s room for %s", h.String("name"), typ, t.String("name"))
	}
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO allocations (student_id, room_id, term_id, status, applied_at) VALUES (?, ?, ?, 'active', ?)`,
		args.StudentID, r.String("id"), t.String("id"), sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return map[string]any{"allocation_id": res.LastInsertID, "room_id": r.String("id"), "hall": h.String("name"), "term": t.String("name"), "rent_per_term": r.Float("rent_per_term"), "status": "active"}, nil
}

// SwapRoomArgs name the term and the new room.
type SwapRoomArgs struct {
	// The student's id.
	StudentID string `json:"student_id"`
	// The term's name.
	TermName string `json:"term_name"`
	// The new room's id, such as M-105.
	RoomID string `json:"room_id"`
}

// SwapRoom moves the student's room for a term to a free room of the same hall.
func SwapRoom(args SwapRoomArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	t, err := termByName(args.TermName)
	if err != nil {
		return nil, err
	}
	cur, err := sdk.QueryRow(`SELECT a.id, a.room_id, r.hall_id FROM allocations a JOIN rooms r ON r.id = a.room_id
		WHERE a.student_id = ? AND a.term_id = ? AND a.status = 'active'`, args.StudentID, t.String("id"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the student has no room for %s", t.String("name"))
	}
	if err != nil {
		return nil, err
	}
	room, err := sdk.QueryRow(`SELECT id, hall_id, room_type, rent_per_term FROM rooms WHERE id = ?`, strings.ToUpper(strings.TrimSpace(args.RoomID)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no room %q", args.RoomID)
	}
	if err != nil {
		return nil, err
	}
	if room.String("hall_id") != cur.String("hall_id") {
		return nil, fmt.Errorf("room %s is in another hall: a swap stays in the same hall", room.String("id"))
	}
	_, err = sdk.QueryRow(`SELECT id FROM allocations WHERE room_id = ? AND term_id = ? AND status = 'active'`, room.String("id"), t.String("id"))
	if err == nil {
		return nil, fmt.Errorf("room %s is not free for %s", room.String("id"), t.String("name"))
	}
	if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE allocations SET room_id = ? WHERE id = ?`, room.String("id"), cur.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"allocation_id": cur.Int("id"), "old_room_id": cur.String("room_id"), "room_id": room.String("id"), "room_type": room.String("room_type"), "rent_per_term": room.Float("rent_per_term"), "term": t.String("name")}, nil
}

// CancelApplicationArgs name the term.
type CancelApplicationArgs struct {
	// The student's id.
	StudentID string `json:"student_id"`
	// The term's name.
	TermName string `json:"term_name"`
}

// CancelApplication cancels the student's room for a term that has not started.
func CancelApplication(args CancelApplicationArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	t, err := futureTerm(args.TermName)
	if err != nil {
		return nil, err
	}
	cur, err := sdk.QueryRow(`SELECT id, room_id FROM allocations WHERE student_id = ? AND term_id = ? AND status = 'active'`, args.StudentID, t.String("id"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the student has no room for %s", t.String("name"))
	}
	if err != nil {
		return nil, err
	}
	at := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec(`UPDATE allocations SET status = 'cancelled', cancelled_at = ? WHERE id = ?`, at, cur.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"allocation_id": cur.Int("id"), "room_id": cur.String("room_id"), "term": t.String("name"), "status": "cancelled"}, nil
}

func hallByName(name string) (sdk.Row, error) {
	h, err := sdk.QueryRow(`SELECT id, name FROM halls WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no hall named %q", name)
	}
	return h, err
}

func termByName(name string) (sdk.Row, error) {
	t, err := sdk.QueryRow(`SELECT id, name, starts_on FROM terms WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no term named %q", name)
	}
	return t, err
}

// futureTerm returns the term if it has not started yet.
func futureTerm(name string) (sdk.Row, error) {
	t, err := termByName(name)
	if err != nil {
		return sdk.Row{}, err
	}
	if t.String("starts_on") <= sdk.Now().UTC().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("%s has already started", t.String("name"))
	}
	return t, nil
}

func noActiveRoom(student string, term sdk.Row) error {
	_, err := sdk.QueryRow(`SELECT id FROM allocations WHERE student_id = ? AND term_id = ? AND status = 'active'`, student, term.String("id"))
	if err == nil {
		return fmt.Errorf("the student already has a room for %s", term.String("name"))
	}
	if err == sdk.ErrNoRows {
		return nil
	}
	return err
}
