package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetParentArgs are the arguments of get_parent.
type GetParentArgs struct {
	// the parent's email
	Email string `json:"email"`
}

// GetParent finds the signed-in parent by email, with their children.
func GetParent(args GetParentArgs) (map[string]any, error) {
	p, err := sdk.QueryRow("SELECT id, name, email FROM parents WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no parent with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	rows, err := sdk.Query("SELECT id, name, birth_date FROM children WHERE parent_id = ? ORDER BY birth_date", p.String("id"))
	if err != nil {
		return nil, err
	}
	rooms, err := sdk.Query("SELECT id, name, min_age_months, max_age_months FROM rooms ORDER BY min_age_months")
	if err != nil {
		return nil, err
	}
	var children []any
	for _, c := range rows.All() {
		birth, err := parseDate(c.String("birth_date"))
		if err != nil {
			return nil, err
		}
		age := ageMonths(birth, today())
		room := ""
		for _, r := range rooms.All() {
			if age >= int(r.Int("min_age_months")) && age <= int(r.Int("max_age_months")) {
				room = r.String("id")
			}
		}
		children = append(children, map[string]any{"child_id": c.String("id"), "name": c.String("name"), "birth_date": c.String("birth_date"), "age_months": age, "room_id": room})
	}
	return map[string]any{"parent_id": p.String("id"), "name": p.String("name"), "email": p.String("email"), "children": children}, nil
}

// ListRooms lists the rooms with their age ranges, fees and capacities.
func ListRooms() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, min_age_months, max_age_months, daily_fee, capacity FROM rooms ORDER BY min_age_months")
}

// RoomDateArgs name a room and a date.
type RoomDateArgs struct {
	// room id
	RoomID string `json:"room_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// GetRoomAvailability counts a room's booked children and places left on a date.
func GetRoomAvailability(args RoomDateArgs) (map[string]any, error) {
	room, err := getRoom(args.RoomID)
	if err != nil {
		return nil, err
	}
	d, err := parseDate(args.Date)
	if err != nil {
		return nil, err
	}
	left, err := placesLeft(room, d.Format("2006-01-02"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"room_id": room.String("id"), "room": room.String("name"), "date": d.Format("2006-01-02"), "capacity": room.Int("capacity"), "booked": room.Int("capacity") - int64(left), "places_left": left}, nil
}

// ListSessionsArgs are the arguments of list_sessions.
type ListSessionsArgs struct {
	// child id
	ChildID string `json:"child_id"`
	// YYYY-MM-DD
	FromDate string `json:"from_date"`
	// YYYY-MM-DD
	ToDate string `json:"to_date"`
}

// ListSessions lists a child's sessions between two dates, inclusive.
func ListSessions(args ListSessionsArgs) (sdk.Rows, error) {
	if _, err := getChild(args.ChildID); err != nil {
		return sdk.Rows{}, err
	}
	from, err := parseDate(args.FromDate)
	if err != nil {
		return sdk.Rows{}, err
	}
	to, err := parseDate(args.ToDate)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT s.id, r.name AS room, s.date, s.status, s.fee, s.discount, s.refund FROM sessions s JOIN rooms r ON r.id = s.room_id WHERE s.child_id = ? AND s.date BETWEEN ? AND ? ORDER BY s.date",
		args.ChildID, from.Format("2006-01-02"), to.Format("2006-01-02"))
}

// ChildArgs name a child.
type ChildArgs struct {
	// child id
	ChildID string `json:"child_id"`
}

// ListPickups lists the people authorised to pick up a child.
func ListPickups(args ChildArgs) (sdk.Rows, error) {
	if _, err := getChild(args.ChildID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id AS pickup_id, name, phone FROM pickups WHERE child_id = ? ORDER BY id", args.ChildID)
}

// ParentArgs name a parent.
type ParentArgs struct {
	// parent id
	ParentID string `json:"parent_id"`
}

// ListInvoices lists a parent's invoices with their overdue flag.
func ListInvoices(args ParentArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM parents WHERE id = ?", args.ParentID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no parent with id %q", args.ParentID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id, issued, due_date, amount, status, (status = 'unpaid' AND due_date < ?) AS overdue FROM invoices WHERE parent_id = ? ORDER BY due_date",
		today().Format("2006-01-02"), args.ParentID)
}
