package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// SearchRooms lists the meeting rooms that are free for the whole time range
// and match the filters, smallest capacity first.
func SearchRooms(args SearchRoomsArgs) (sdk.Rows, error) {
	s, e, err := parseRange(args.Start, args.End, 12*time.Hour)
	if err != nil {
		return sdk.Rows{}, err
	}
	if args.MinCapacity < 0 {
		return sdk.Rows{}, fmt.Errorf("min_capacity cannot be negative")
	}
	return sdk.Query(`SELECT r.room_id, r.name, r.building, r.floor, r.capacity, r.has_video, r.has_whiteboard
		FROM rooms r
		WHERE r.capacity >= ? AND (? = '' OR lower(r.building) = lower(?))
		  AND (? = 0 OR r.has_video = 1) AND (? = 0 OR r.has_whiteboard = 1)
		  AND NOT EXISTS (SELECT 1 FROM room_bookings b WHERE b.room_id = r.room_id AND b.status = 'active'
		                  AND b.start_at < ? AND b.end_at > ?)
		ORDER BY r.capacity, r.name`,
		args.MinCapacity, args.Building, args.Building, args.NeedsVideo, args.NeedsWhiteboard, fmtTS(e), fmtTS(s))
}

// SearchRoomsArgs are the arguments of search_rooms.
type SearchRoomsArgs struct {
	// Start of the time the room is needed, ISO-8601 UTC.
	Start string `json:"start"`
	// End of the time the room is needed, ISO-8601 UTC.
	End string `json:"end"`
	// Minimum number of seats.
	MinCapacity int `json:"min_capacity,omitempty"`
	// Only rooms in this building.
	Building string `json:"building,omitempty" enum:"HQ,Annex"`
	// Only rooms with video-conferencing equipment.
	NeedsVideo bool `json:"needs_video,omitempty"`
	// Only rooms with a whiteboard.
	NeedsWhiteboard bool `json:"needs_whiteboard,omitempty"`
}

// BookRoom books a room for an upcoming event (organizer only). The event must
// not already have a room, the room must be free for the event's whole time and
// seat everyone who has not declined.
func BookRoom(args BookRoomArgs) (map[string]any, error) {
	ev, err := getModifiableEvent(args.EventID, args.UserID)
	if err != nil {
		return nil, err
	}
	if b, err := activeBooking(args.EventID); err == nil {
		return nil, fmt.Errorf("event %s already has room %s (%s) booked; release it first", args.EventID, b.String("room_name"), b.String("room_id"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	s, _ := parseTS("start", ev.String("start_at"))
	e, _ := parseTS("end", ev.String("end_at"))
	n, err := headcount(args.EventID)
	if err != nil {
		return nil, err
	}
	if err := checkRoomFits(args.RoomID, n, s, e, ""); err != nil {
		return nil, err
	}
	id, err := insertBooking(args.RoomID, args.EventID, args.UserID, s, e)
	if err != nil {
		return nil, err
	}
	b, err := activeBooking(args.EventID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": id, "event_id": args.EventID, "room": b}, nil
}

// BookRoomArgs are the arguments of book_room.
type BookRoomArgs struct {
	// The event that needs the room.
	EventID string `json:"event_id"`
	// The requesting user; must be the event's organizer.
	UserID string `json:"user_id"`
	// The room to book, such as "r03".
	RoomID string `json:"room_id"`
}

// ReleaseRoom releases the room booked for an upcoming event (organizer only).
func ReleaseRoom(args ReleaseRoomArgs) (map[string]any, error) {
	if _, err := getModifiableEvent(args.EventID, args.UserID); err != nil {
		return nil, err
	}
	b, err := activeBooking(args.EventID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("event %s has no room booked", args.EventID)
	} else if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE room_bookings SET status = 'released', released_at = ? WHERE booking_id = ?`, nowTS(), b.String("booking_id")); err != nil {
		return nil, err
	}
	return map[string]any{"event_id": args.EventID, "released_booking_id": b.String("booking_id"), "room_id": b.String("room_id")}, nil
}

// ReleaseRoomArgs are the arguments of release_room.
type ReleaseRoomArgs struct {
	// The event whose room to release.
	EventID string `json:"event_id"`
	// The requesting user; must be the event's organizer.
	UserID string `json:"user_id"`
}

// checkRoomFits fails unless the room exists, seats n people and is free during [s, e).
func checkRoomFits(roomID string, n int64, s, e time.Time, exceptBooking string) error {
	room, err := sdk.QueryRow(`SELECT name, capacity FROM rooms WHERE room_id = ?`, roomID)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("room %q not found", roomID)
	} else if err != nil {
		return err
	}
	if room.Int("capacity") < n {
		return fmt.Errorf("room %s (%s) seats %d but the meeting has %d attendees", room.String("name"), roomID, room.Int("capacity"), n)
	}
	if t, err := roomTaken(roomID, s, e, exceptBooking); err == nil {
		return fmt.Errorf("room %s (%s) is already booked %s-%s (event %s)", room.String("name"), roomID, t.String("start_at"), t.String("end_at"), t.String("event_id"))
	} else if err != sdk.ErrNoRows {
		return err
	}
	return nil
}

// insertBooking writes an active booking with a fresh id.
func insertBooking(roomID, eventID, userID string, s, e time.Time) (string, error) {
	id, err := nextID("booking", "bk-")
	if err != nil {
		return "", err
	}
	_, err = sdk.Exec(`INSERT INTO room_bookings (booking_id, room_id, event_id, booked_by, start_at, end_at, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 'active', ?)`, id, roomID, eventID, userID, fmtTS(s), fmtTS(e), nowTS())
	return id, err
}
