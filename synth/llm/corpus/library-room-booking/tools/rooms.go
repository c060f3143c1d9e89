package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// roomColumns are the columns every room listing returns.
const roomColumns = "r.id, r.floor, r.seats, r.has_screen AS screen, r.has_whiteboard AS whiteboard, r.has_video_kit AS video_kit, COALESCE((SELECT GROUP_CONCAT(f.equipment, ', ') FROM equipment_faults f WHERE f.room_id = r.id AND f.status = 'open'), '') AS open_faults"

// equipmentFilter is the WHERE clause and parameters of the seat and equipment filters.
func equipmentFilter(minSeats *int, screen, whiteboard, videoKit *bool) (string, []any) {
	where := "r.seats >= ?"
	seats := 0
	if minSeats != nil {
		seats = *minSeats
	}
	params := []any{seats}
	if screen != nil && *screen {
		where += " AND r.has_screen = 1"
	}
	if whiteboard != nil && *whiteboard {
		where += " AND r.has_whiteboard = 1"
	}
	if videoKit != nil && *videoKit {
		where += " AND r.has_video_kit = 1"
	}
	return where, params
}

// SearchRoomsArgs are search_rooms' arguments.
type SearchRoomsArgs struct {
	// fewest seats the room must have
	MinSeats *int `json:"min_seats,omitempty"`
	// room must have a screen
	Screen *bool `json:"screen,omitempty"`
	// room must have a whiteboard
	Whiteboard *bool `json:"whiteboard,omitempty"`
	// room must have a video kit
	VideoKit *bool `json:"video_kit,omitempty"`
}

// SearchRooms lists rooms by seats and equipment.
func SearchRooms(args SearchRoomsArgs) (sdk.Rows, error) {
	where, params := equipmentFilter(args.MinSeats, args.Screen, args.Whiteboard, args.VideoKit)
	return sdk.Query("SELECT "+roomColumns+" FROM rooms r WHERE "+where+" ORDER BY r.seats, r.id", params...)
}

// RoomScheduleArgs are room_schedule's arguments.
type RoomScheduleArgs struct {
	// room id such as R-101
	RoomID string `json:"room_id"`
	// the day, YYYY-MM-DD
	Date string `json:"date"`
}

// RoomSchedule returns a room's booked periods on one day.
func RoomSchedule(args RoomScheduleArgs) (map[string]any, error) {
	if _, err := roomSeats(args.RoomID); err != nil {
		return nil, err
	}
	if _, err := time.Parse("2006-01-02", args.Date); err != nil {
		return nil, fmt.Errorf("date %q is not YYYY-MM-DD", args.Date)
	}
	rows, err := sdk.Query("SELECT start_at, end_at FROM bookings WHERE room_id = ? AND status = 'booked' AND substr(start_at, 1, 10) = ? ORDER BY start_at", args.RoomID, args.Date)
	if err != nil {
		return nil, err
	}
	return map[string]any{"room_id": args.RoomID, "date": args.Date, "opens": "08:00", "closes": "22:00", "booked": rows}, nil
}

// FindFreeRoomsArgs are find_free_rooms' arguments.
type FindFreeRoomsArgs struct {
	// start, ISO-8601 UTC such as 2024-06-04T13:00:00Z
	StartAt string `json:"start_at"`
	// end, ISO-8601 UTC
	EndAt string `json:"end_at"`
	// fewest seats
	MinSeats *int `json:"min_seats,omitempty"`
	// needs a screen
	Screen *bool `json:"screen,omitempty"`
	// needs a whiteboard
	Whiteboard *bool `json:"whiteboard,omitempty"`
	// needs a video kit
	VideoKit *bool `json:"video_kit,omitempty"`
}

// FindFreeRooms lists rooms with no booking overlapping the period.
func FindFreeRooms(args FindFreeRoomsArgs) (out sdk.Rows, err error) {
	start, err := parseHour("start_at", args.StartAt)
	if err != nil {
		return out, err
	}
	end, err := parseHour("end_at", args.EndAt)
	if err != nil {
		return out, err
	}
	if err := checkPeriod(start, end); err != nil {
		return out, err
	}
	where, params := equipmentFilter(args.MinSeats, args.Screen, args.Whiteboard, args.VideoKit)
	params = append(params, end.Format(time.RFC3339), start.Format(time.RFC3339))
	return sdk.Query("SELECT "+roomColumns+" FROM rooms r WHERE "+where+" AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.room_id = r.id AND b.status = 'booked' AND b.start_at < ? AND b.end_at > ?) ORDER BY r.seats, r.id", params...)
}

// ReportEquipmentFaultArgs are report_equipment_fault's arguments.
type ReportEquipmentFaultArgs struct {
	// the reporting member's id
	MemberID string `json:"member_id"`
	// room id
	RoomID string `json:"room_id"`
	// screen, whiteboard or video_kit
	Equipment string `json:"equipment"`
}

// ReportEquipmentFault records an open fault on a room's equipment.
func ReportEquipmentFault(args ReportEquipmentFaultArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow("SELECT id FROM members WHERE id = ?", args.MemberID); err != nil {
		return nil, fmt.Errorf("no member with id %q", args.MemberID)
	}
	column := map[string]string{"screen": "has_screen", "whiteboard": "has_whiteboard", "video_kit": "has_video_kit"}[args.Equipment]
	if column == "" {
		return nil, fmt.Errorf("equipment %q is not screen, whiteboard or video_kit", args.Equipment)
	}
	if _, err := roomSeats(args.RoomID); err != nil {
		return nil, err
	}
	row, err := sdk.QueryRow("SELECT "+column+" AS has FROM rooms WHERE id = ?", args.RoomID)
	if err != nil {
		return nil, err
	}
	if row.Int("has") != 1 {
		return nil, fmt.Errorf("room %s has no %s", args.RoomID, args.Equipment)
	}
	open, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM equipment_faults WHERE room_id = ? AND equipment = ? AND status = 'open'", args.RoomID, args.Equipment)
	if err != nil {
		return nil, err
	}
	if open.Int("n") > 0 {
		return nil, fmt.Errorf("a fault on the %s of room %s is already open", args.Equipment, args.RoomID)
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	res, err := sdk.Exec("INSERT INTO equipment_faults (room_id, equipment, reported_by, reported_at, status) VALUES (?, ?, ?, ?, 'open')", args.RoomID, args.Equipment, args.MemberID, now)
	if err != nil {
		return nil, err
	}
	return map[string]any{"fault_id": res.LastInsertID, "room_id": args.RoomID, "equipment": args.Equipment, "reported_at": now, "status": "open"}, nil
}
