package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetCustomerArgs are the arguments of get_customer.
type GetCustomerArgs struct {
	// the customer's email
	Email string `json:"email"`
}

// GetCustomer finds the signed-in customer by email: customer id and name.
func GetCustomer(args GetCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id AS customer_id, name FROM customers WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer with email %q", args.Email)
	}
	return c, err
}

// ListRooms lists the rooms: id, name, minimum and maximum players, and price.
func ListRooms() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, min_players, max_players, price FROM rooms ORDER BY name")
}

// FindSlotsArgs are the arguments of find_slots.
type FindSlotsArgs struct {
	// room id
	RoomID string `json:"room_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// FindSlots lists a room's open times on a date.
func FindSlots(args FindSlotsArgs) (sdk.Rows, error) {
	if _, err := getRoom(args.RoomID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT time FROM slots WHERE room_id = ? AND date = ? AND status = 'open' ORDER BY time", strings.TrimSpace(args.RoomID), strings.TrimSpace(args.Date))
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListBookings lists a customer's bookings: booking id, room, date, time,
// adults, children, players, status, paid, refunded and extras.
func ListBookings(args CustomerArgs) (sdk.Rows, error) {
	if _, err := getCustomer(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT b.id AS booking_id, r.name AS room, b.date, b.time, b.adults, b.children, b.adults + b.children AS players, b.status, b.paid, b.refunded, COALESCE((SELECT group_concat(extra, ',') FROM (SELECT extra FROM booking_extras WHERE booking_id = b.id ORDER BY extra)), '') AS extras FROM bookings b JOIN rooms r ON r.id = b.room_id WHERE b.customer_id = ? ORDER BY b.date, b.time", args.CustomerID)
}

// BookRoomArgs are the arguments of book_room.
type BookRoomArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// room id
	RoomID string `json:"room_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// HH:MM
	Time string `json:"time"`
	// adults in the group
	Adults int64 `json:"adults"`
	// children under 16 in the group
	Children int64 `json:"children,omitempty"`
}

// BookRoom books a room at an open time for a group, charging the room's
// price. It fails when the time is not open, the group is outside the room's
// players, or children have no adult.
func BookRoom(args BookRoomArgs) (sdk.Row, error) {
	c, err := getCustomer(args.CustomerID)
	if err != nil {
		return sdk.Row{}, err
	}
	r, err := getRoom(args.RoomID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := groupFits(r, args.Adults, args.Children); err != nil {
		return sdk.Row{}, err
	}
	s, err := openSlot(r.String("id"), args.Date, args.Time)
	if err != nil {
		return sdk.Row{}, err
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 0) + 1 AS n FROM bookings WHERE id LIKE 'BK-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("BK-%02d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO bookings (id, customer_id, room_id, date, time, adults, children, status, paid, refunded) VALUES (?, ?, ?, ?, ?, ?, ?, 'booked', ?, 0)",
		id, c.String("id"), r.String("id"), strings.TrimSpace(args.Date), strings.TrimSpace(args.Time), args.Adults, args.Children, r.Float("price")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(id)
}

// ChangePlayersArgs are the arguments of change_players.
type ChangePlayersArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// new number of players
	Players int64 `json:"players"`
}

// ChangePlayers changes a booking's number of players, keeping its children
// (the rest are adults). It fails outside the room's minimum and maximum.
func ChangePlayers(args ChangePlayersArgs) (sdk.Row, error) {
	b, err := activeBooking(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	r, err := getRoom(b.String("room_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	adults := args.Players - b.Int("children")
	if err := groupFits(r, adults, b.Int("children")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET adults = ? WHERE id = ?", adults, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// MoveBookingArgs are the arguments of move_booking.
type MoveBookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// new time, HH:MM
	Time string `json:"time"`
}

// MoveBooking moves a booking to another open time the same day in the same
// room; the old time opens again.
func MoveBooking(args MoveBookingArgs) (sdk.Row, error) {
	b, err := activeBooking(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	s, err := openSlot(b.String("room_id"), b.String("date"), args.Time)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE room_id = ? AND date = ? AND time = ?", b.String("room_id"), b.String("date"), b.String("time")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'booked' WHERE id = ?", s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET time = ? WHERE id = ?", strings.TrimSpace(args.Time), b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// AddExtraArgs are the arguments of add_extra.
type AddExtraArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// photo or hints
	Extra string `json:"extra"`
}

// AddExtra adds the photo package (15.00) or the hint pack (10.00) to a
// booking, paid now. It fails when the booking already has it.
func AddExtra(args AddExtraArgs) (sdk.Row, error) {
	b, err := activeBooking(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	prices := map[string]float64{"photo": 15, "hints": 10}
	extra := strings.ToLower(strings.TrimSpace(args.Extra))
	price, ok := prices[extra]
	if !ok {
		return sdk.Row{}, fmt.Errorf("extra %q is not photo or hints", args.Extra)
	}
	if _, err := sdk.QueryRow("SELECT extra FROM booking_extras WHERE booking_id = ? AND extra = ?", b.String("id"), extra); err == nil {
		return sdk.Row{}, fmt.Errorf("booking %s already has the %s extra", b.String("id"), extra)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO booking_extras (booking_id, extra, price) VALUES (?, ?, ?)", b.String("id"), extra, price); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET paid = ? WHERE id = ?", round2(b.Float("paid")+price), b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// ApplyVoucherArgs are the arguments of apply_voucher.
type ApplyVoucherArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// voucher code
	Code string `json:"code"`
}

// ApplyVoucher uses a gift voucher on a booking: what was paid is lowered by
// the voucher's value (at most what was paid). It fails when the voucher is
// another customer's or already used.
func ApplyVoucher(args ApplyVoucherArgs) (sdk.Row, error) {
	b, err := activeBooking(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	v, err := sdk.QueryRow("SELECT code, customer_id, value, used_on FROM vouchers WHERE code = ?", strings.ToUpper(strings.TrimSpace(args.Code)))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no voucher %q", args.Code)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if v.String("customer_id") != b.String("customer_id") {
		return sdk.Row{}, fmt.Errorf("voucher %s belongs to another customer", v.String("code"))
	}
	if !v.IsNull("used_on") {
		return sdk.Row{}, fmt.Errorf("voucher %s was already used on booking %s", v.String("code"), v.String("used_on"))
	}
	amount := min(v.Float("value"), b.Float("paid"))
	if _, err := sdk.Exec("UPDATE bookings SET paid = ? WHERE id = ?", round2(b.Float("paid")-amount), b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE vouchers SET used_on = ? WHERE code = ?", b.String("id"), v.String("code")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// BookingArgs name a booking.
type BookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels a booking. 72 hours or more before it, everything
// paid is refunded; later, half is kept.
func CancelBooking(args BookingArgs) (sdk.Row, error) {
	b, err := activeBooking(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	h, err := hoursUntil(b.String("date"), b.String("time"))
	if err != nil {
		return sdk.Row{}, err
	}
	refund := b.Float("paid")
	if h < freeCancelHours {
		refund = round2(b.Float("paid") / 2)
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', refunded = ?, cancelled_at = ? WHERE id = ?", refund, stamp(), b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE slots SET status = 'open' WHERE room_id = ? AND date = ? AND time = ?", b.String("room_id"), b.String("date"), b.String("time")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}
