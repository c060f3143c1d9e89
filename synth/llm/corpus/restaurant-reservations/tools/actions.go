package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// CreateBookingArgs are the arguments of create_booking.
type CreateBookingArgs struct {
	// guest id
	GuestID string `json:"guest_id"`
	// branch id or name
	Branch string `json:"branch"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// HH:MM
	Time string `json:"time"`
	// number of guests
	PartySize int `json:"party_size"`
}

// CreateBooking books a table for a guest. It fails when the slot does not
// exist or is past, has too few seats left, or the party exceeds the branch's
// largest party. Parties of more than 8 pay a deposit of 10.00 per guest.
// Returns the new booking.
func CreateBooking(args CreateBookingArgs) (sdk.Row, error) {
	g, err := getGuest(args.GuestID)
	if err != nil {
		return sdk.Row{}, err
	}
	b, err := branch(args.Branch)
	if err != nil {
		return sdk.Row{}, err
	}
	date, err := checkDate(args.Date)
	if err != nil {
		return sdk.Row{}, err
	}
	hm, err := checkTime(args.Time)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.PartySize < 1 {
		return sdk.Row{}, errors.New("a party has at least one guest")
	}
	if args.PartySize > int(b.Int("max_party")) {
		return sdk.Row{}, fmt.Errorf("%s takes at most %d guests per booking", b.String("name"), b.Int("max_party"))
	}
	if h, err := hoursUntil(date, hm); err != nil {
		return sdk.Row{}, err
	} else if h <= 0 {
		return sdk.Row{}, fmt.Errorf("%s %s is in the past", date, hm)
	}
	left, err := seatsLeft(b.String("id"), date, hm, "")
	if err != nil {
		return sdk.Row{}, err
	}
	if args.PartySize > left {
		return sdk.Row{}, fmt.Errorf("%s on %s at %s has %d seats left, too few for %d", b.String("name"), date, hm, left, args.PartySize)
	}
	ref, err := nextReference()
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO bookings (id, guest_id, branch_id, date, time, party_size, status, deposit_paid, deposit_refunded) VALUES (?, ?, ?, ?, ?, ?, 'confirmed', ?, 0)",
		ref, g.String("id"), b.String("id"), date, hm, args.PartySize, deposit(args.PartySize)); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(ref)
}

// UpdateBookingArgs are the arguments of update_booking.
type UpdateBookingArgs struct {
	// booking reference
	BookingID string `json:"booking_id"`
	// new branch id or name
	Branch string `json:"branch,omitempty"`
	// new time, HH:MM
	Time string `json:"time,omitempty"`
	// new number of guests
	PartySize int `json:"party_size,omitempty"`
}

// UpdateBooking changes a confirmed booking's branch, time or party size (the
// date stays); omitted values stay as they are. It fails when the new slot does
// not exist or lacks seats (the booking's own seats count as free), or the
// party exceeds the branch's largest party. Parties of more than 8 pay 10.00
// per guest; when a party drops to 8 or fewer its deposit is refunded only 48
// hours or more before the booking. The set-menu pre-order is not changed.
func UpdateBooking(args UpdateBookingArgs) (sdk.Row, error) {
	bk, err := confirmed(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	ref := bk.String("reference")
	br, err := branch(bk.String("branch_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if strings.TrimSpace(args.Branch) != "" {
		if br, err = branch(args.Branch); err != nil {
			return sdk.Row{}, err
		}
	}
	hm := bk.String("time")
	if strings.TrimSpace(args.Time) != "" {
		if hm, err = checkTime(args.Time); err != nil {
			return sdk.Row{}, err
		}
	}
	party := int(bk.Int("party_size"))
	if args.PartySize != 0 {
		if args.PartySize < 1 {
			return sdk.Row{}, errors.New("a party has at least one guest")
		}
		party = args.PartySize
	}
	if party > int(br.Int("max_party")) {
		return sdk.Row{}, fmt.Errorf("%s takes at most %d guests per booking", br.String("name"), br.Int("max_party"))
	}
	date := bk.String("date")
	h, err := hoursUntil(date, hm)
	if err != nil {
		return sdk.Row{}, err
	}
	if h <= 0 {
		return sdk.Row{}, fmt.Errorf("%s %s is in the past", date, hm)
	}
	left, err := seatsLeft(br.String("id"), date, hm, ref)
	if err != nil {
		return sdk.Row{}, err
	}
	if party > left {
		return sdk.Row{}, fmt.Errorf("%s on %s at %s has %d seats left, too few for %d", br.String("name"), date, hm, left, party)
	}
	paid, refunded := bk.Float("deposit_paid"), bk.Float("deposit_refunded")
	if d := deposit(party); d > 0 {
		paid, refunded = d, 0
	} else if paid-refunded > 0 {
		before, err := hoursUntil(date, bk.String("time"))
		if err != nil {
			return sdk.Row{}, err
		}
		if before >= refundHours {
			refunded = paid
		}
	}
	if _, err := sdk.Exec("UPDATE bookings SET branch_id = ?, time = ?, party_size = ?, deposit_paid = ?, deposit_refunded = ? WHERE id = ?",
		br.String("id"), hm, party, round2(paid), round2(refunded), ref); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(ref)
}

// BookingArgs name a booking.
type BookingArgs struct {
	// booking reference
	BookingID string `json:"booking_id"`
}

// CancelBooking cancels a confirmed booking. Its deposit is refunded when the
// booking is 48 hours or more away; otherwise the deposit is kept. Returns
// the booking with the refund.
func CancelBooking(args BookingArgs) (sdk.Row, error) {
	bk, err := confirmed(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	h, err := hoursUntil(bk.String("date"), bk.String("time"))
	if err != nil {
		return sdk.Row{}, err
	}
	refunded := bk.Float("deposit_refunded")
	if h >= refundHours {
		refunded = bk.Float("deposit_paid")
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', deposit_refunded = ?, cancelled_at = ? WHERE id = ?",
		round2(refunded), sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), bk.String("reference")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(bk.String("reference"))
}

// SetPreorderArgs are the arguments of set_preorder.
type SetPreorderArgs struct {
	// booking reference
	BookingID string `json:"booking_id"`
	// set menu id
	MenuID string `json:"menu_id"`
}

// SetPreorder sets a confirmed booking's set-menu pre-order to one menu for
// every guest of the party (quantity = party size), replacing any earlier
// pre-order.
func SetPreorder(args SetPreorderArgs) (sdk.Row, error) {
	bk, err := confirmed(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	m, err := sdk.QueryRow("SELECT id, name FROM set_menus WHERE id = ? OR lower(name) = lower(?)", strings.TrimSpace(args.MenuID), strings.TrimSpace(args.MenuID))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no set menu %q", args.MenuID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("DELETE FROM preorders WHERE booking_id = ?", bk.String("reference")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO preorders (booking_id, menu_id, quantity) VALUES (?, ?, ?)", bk.String("reference"), m.String("id"), bk.Int("party_size")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(bk.String("reference"))
}

// JoinWaitlistArgs are the arguments of join_waitlist.
type JoinWaitlistArgs struct {
	// guest id
	GuestID string `json:"guest_id"`
	// branch id or name
	Branch string `json:"branch"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// HH:MM
	Time string `json:"time"`
	// number of guests
	PartySize int `json:"party_size"`
}

// JoinWaitlist puts a guest on the waitlist of a slot for a party size. It
// fails when the slot still has room for the party (book it instead) or when
// the guest is already on that slot's waitlist.
func JoinWaitlist(args JoinWaitlistArgs) (map[string]any, error) {
	g, err := getGuest(args.GuestID)
	if err != nil {
		return nil, err
	}
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
	if args.PartySize < 1 {
		return nil, errors.New("a party has at least one guest")
	}
	left, err := seatsLeft(b.String("id"), date, hm, "")
	if err != nil {
		return nil, err
	}
	if args.PartySize <= left && args.PartySize <= int(b.Int("max_party")) {
		return nil, fmt.Errorf("%s on %s at %s still has %d seats: book it instead", b.String("name"), date, hm, left)
	}
	if _, err := sdk.QueryRow("SELECT id FROM waitlist WHERE guest_id = ? AND branch_id = ? AND date = ? AND time = ?", g.String("id"), b.String("id"), date, hm); err == nil {
		return nil, fmt.Errorf("%s is already on the waitlist of %s on %s at %s", g.String("name"), b.String("name"), date, hm)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	res, err := sdk.Exec("INSERT INTO waitlist (guest_id, branch_id, date, time, party_size, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		g.String("id"), b.String("id"), date, hm, args.PartySize, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"waitlist_id": res.LastInsertID, "guest": g.String("name"), "branch": b.String("name"), "date": date, "time": hm, "party_size": args.PartySize}, nil
}
