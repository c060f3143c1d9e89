package tools

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// freeCancellation is how long before check-in (14:00 on the arrival day)
// a booking may still be cancelled.
const freeCancellation = 48 * time.Hour

// BookRoomArgs are the arguments of book_room.
type BookRoomArgs struct {
	// The guest's id from find_guest.
	GuestID string `json:"guest_id"`
	// The room's id from search_rooms.
	RoomID string `json:"room_id"`
	// Arrival date, YYYY-MM-DD.
	CheckIn string `json:"check_in"`
	// Departure date, YYYY-MM-DD.
	CheckOut string `json:"check_out"`
	// Include breakfast.
	Breakfast bool `json:"breakfast,omitempty"`
}

// BookRoom books a free room for a future stay and returns the booking.
func BookRoom(args BookRoomArgs) (sdk.Row, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM guests WHERE id = ?`, args.GuestID); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no guest has the id %s", args.GuestID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	nights, err := stayNights(args.CheckIn, args.CheckOut)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.CheckIn < sdk.Now().Format("2006-01-02") {
		return sdk.Row{}, errors.New("the stay must start today or later")
	}
	room, err := sdk.QueryRow(`SELECT r.id, r.nightly_rate, h.breakfast_price FROM rooms r JOIN hotels h ON h.id = r.hotel_id WHERE r.id = ?`, args.RoomID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no room has the id %s", args.RoomID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM bookings WHERE room_id = ? AND status = 'booked' AND check_in < ? AND check_out > ?`,
		args.RoomID, args.CheckOut, args.CheckIn); err == nil {
		return sdk.Row{}, fmt.Errorf("room %s is taken for some of those nights", args.RoomID)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	perNight := room.Float("nightly_rate")
	breakfast := 0
	if args.Breakfast {
		perNight += room.Float("breakfast_price")
		breakfast = 1
	}
	total := math.Round(perNight*float64(nights)*100) / 100
	res, err := sdk.Exec(`INSERT INTO bookings (guest_id, room_id, check_in, check_out, status, breakfast, total, booked_at, cancelled_at)
		VALUES (?, ?, ?, ?, 'booked', ?, ?, ?, NULL)`, args.GuestID, args.RoomID, args.CheckIn, args.CheckOut, breakfast, total, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return bookingView(res.LastInsertID)
}

func bookingView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT b.id AS booking_id, h.name AS hotel, r.number AS room, r.type, b.check_in, b.check_out, b.status,
			b.breakfast = 1 AS breakfast, b.total, coalesce(b.cancelled_at, '') AS cancelled_at
		FROM bookings b JOIN rooms r ON r.id = b.room_id JOIN hotels h ON h.id = r.hotel_id WHERE b.id = ?`, id)
}

// guestBooking loads the guest's booked (not cancelled) booking.
func guestBooking(guest string, id int64) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.id, b.status, b.check_in, b.check_out, b.breakfast, h.breakfast_price
		FROM bookings b JOIN rooms r ON r.id = b.room_id JOIN hotels h ON h.id = r.hotel_id WHERE b.id = ? AND b.guest_id = ?`, id, guest)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the guest has no booking %d", id)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("booking %d is %s", id, b.String("status"))
	}
	return b, nil
}

// CancelBookingArgs are the arguments of cancel_booking.
type CancelBookingArgs struct {
	// The guest's id from find_guest.
	GuestID string `json:"guest_id"`
	// The booking's id from list_bookings.
	BookingID int64 `json:"booking_id"`
}

// CancelBooking cancels the guest's booking up to 48 hours before check-in.
func CancelBooking(args CancelBookingArgs) (sdk.Row, error) {
	b, err := guestBooking(args.GuestID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	in, err := time.Parse("2006-01-02", b.String("check_in"))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("booking %d has an unreadable check-in date", args.BookingID)
	}
	if in.Add(14*time.Hour).Sub(sdk.Now()) < freeCancellation {
		return sdk.Row{}, fmt.Errorf("booking %d starts in less than 48 hours and can no longer be cancelled here: please call the hotel", args.BookingID)
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ?`, sdk.Now().Format(time.RFC3339), args.BookingID); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(args.BookingID)
}

// AddBreakfastArgs are the arguments of add_breakfast.
type AddBreakfastArgs struct {
	// The guest's id from find_guest.
	GuestID string `json:"guest_id"`
	// The booking's id from list_bookings.
	BookingID int64 `json:"booking_id"`
}

// AddBreakfast adds breakfast to a booking that has not started, raising
// its total by the hotel's breakfast price per night.
func AddBreakfast(args AddBreakfastArgs) (sdk.Row, error) {
	b, err := guestBooking(args.GuestID, args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.Int("breakfast") == 1 {
		return sdk.Row{}, fmt.Errorf("booking %d already includes breakfast", args.BookingID)
	}
	if b.String("check_in") <= sdk.Now().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("booking %d has already started", args.BookingID)
	}
	nights, err := stayNights(b.String("check_in"), b.String("check_out"))
	if err != nil {
		return sdk.Row{}, err
	}
	extra := b.Float("breakfast_price") * float64(nights)
	if _, err := sdk.Exec(`UPDATE bookings SET breakfast = 1, total = round(total + ?, 2) WHERE id = ?`, extra, args.BookingID); err != nil {
		return sdk.Row{}, err
	}
	return bookingView(args.BookingID)
}
