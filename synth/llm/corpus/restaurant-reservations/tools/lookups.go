package tools

import (
	"errors"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyGuestArgs are the arguments of verify_guest.
type VerifyGuestArgs struct {
	// the guest's phone number
	Phone string `json:"phone"`
	// one of the guest's booking references, such as RB-1001
	BookingReference string `json:"booking_reference"`
}

// VerifyGuest verifies a guest by phone number and booking reference: it
// succeeds when the booking belongs to the guest with that phone, and returns
// the guest's id and name. Call it before anything else.
func VerifyGuest(args VerifyGuestArgs) (sdk.Row, error) {
	g, err := sdk.QueryRow("SELECT g.id AS guest_id, g.name FROM guests g JOIN bookings b ON b.guest_id = g.id WHERE g.phone = ? AND b.id = ?",
		strings.TrimSpace(args.Phone), strings.ToUpper(strings.TrimSpace(args.BookingReference)))
	if errors.Is(err, sdk.ErrNoRows) {
		return g, errors.New("the phone number and booking reference do not match any guest")
	}
	return g, err
}

// ListBranches lists the branches: id, name and the largest party one booking may have.
func ListBranches() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, max_party FROM branches ORDER BY name")
}

// GuestArgs name a guest.
type GuestArgs struct {
	// guest id from verify_guest
	GuestID string `json:"guest_id"`
}

// ListGuestBookings lists a guest's bookings: reference, branch, date, time,
// party size, status, deposit paid and refunded, and the set-menu pre-order.
func ListGuestBookings(args GuestArgs) (sdk.Rows, error) {
	if _, err := getGuest(args.GuestID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT b.id AS reference, br.name AS branch, b.date, b.time, b.party_size, b.status, b.deposit_paid, b.deposit_refunded, COALESCE((SELECT m.name || ' x' || p.quantity FROM preorders p JOIN set_menus m ON m.id = p.menu_id WHERE p.booking_id = b.id), '') AS preorder FROM bookings b JOIN branches br ON br.id = b.branch_id WHERE b.guest_id = ? ORDER BY b.date, b.time", args.GuestID)
}

// SlotArgs name a slot and a party.
type SlotArgs struct {
	// branch id or name
	Branch string `json:"branch"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// HH:MM
	Time string `json:"time"`
	// number of guests
	PartySize int `json:"party_size"`
}

// CheckAvailability says whether a branch has a slot at a date and time, how
// many seats are left (capacity minus the confirmed bookings' guests), and
// whether a party of the given size fits (seats and the branch's largest party).
func CheckAvailability(args SlotArgs) (map[string]any, error) {
	b, err := branch(args.Branch)
	if err != nil {
		return nil, err
	}
	date, err := checkDate(args.Date)
	if err != nil {
		return nil, err
	}
	hm, err := checkTime(args.Time)
	if err != nil {
		return nil, err
	}
	left, err := seatsLeft(b.String("id"), date, hm, "")
	if err != nil {
		return nil, err
	}
	fits := args.PartySize > 0 && args.PartySize <= left && args.PartySize <= int(b.Int("max_party"))
	return map[string]any{"branch": b.String("name"), "date": date, "time": hm, "seats_left": left, "max_party": b.Int("max_party"), "party_size": args.PartySize, "fits": fits}, nil
}

// ListSetMenus lists the set menus: id, name and price per guest.
func ListSetMenus() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, price FROM set_menus ORDER BY id")
}
