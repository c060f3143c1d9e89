package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyCoupleArgs struct {
	// Booking reference, e.g. WV-301
	BookingID string `json:"booking_id"`
	// Email on file
	Email string `json:"email"`
}

// VerifyCouple verifies a couple by a booking reference and the email on file; returns the couple id, names and their bookings. Call it before anything else.
func VerifyCouple(args VerifyCoupleArgs) (map[string]any, error) {
	c, err := sdk.QueryRow(`SELECT c.id, c.names, c.email FROM bookings b JOIN couples c ON c.id = b.couple_id WHERE b.id = ?`, strings.TrimSpace(args.BookingID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("booking %s not found", args.BookingID)
	}
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(strings.TrimSpace(args.Email), c.String("email")) {
		return nil, fmt.Errorf("the email does not match the one on file for booking %s", args.BookingID)
	}
	bookings, err := sdk.Query(`SELECT b.id AS booking_id, v.name AS venue, b.wedding_date, b.status FROM bookings b JOIN venues v ON v.id = b.venue_id WHERE b.couple_id = ? ORDER BY b.wedding_date`, c.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"couple_id": c.String("id"), "names": c.String("names"), "bookings": bookings}, nil
}

type BookingArgs struct {
	// Booking reference
	BookingID string `json:"booking_id"`
}

// GetBooking returns a booking: venue, capacity, date, days until the wedding, guests, packages, venue and package prices, fees, total, deposit, paid, balance due and the payment deadline (60 days before the wedding).
func GetBooking(args BookingArgs) (map[string]any, error) {
	return bookingView(args.BookingID)
}

type FindFreeVenuesArgs struct {
	// YYYY-MM-DD
	Date string `json:"date"`
	// Number of guests
	Guests int `json:"guests"`
}

// FindFreeVenues lists the venues free on a date that hold the guests, with the venue price for them, cheapest first.
func FindFreeVenues(args FindFreeVenuesArgs) (sdk.Rows, error) {
	if _, err := daysUntil(args.Date); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT v.name AS venue, v.capacity, ROUND(v.base_price + v.per_guest * ?, 2) AS venue_price FROM venues v
		WHERE v.capacity >= ? AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.venue_id = v.id AND b.wedding_date = ? AND b.status = 'booked')
		ORDER BY venue_price, v.name`, args.Guests, args.Guests, strings.TrimSpace(args.Date))
}

type BookVenueArgs struct {
	// Couple id from verify_couple
	CoupleID string `json:"couple_id"`
	// Venue name
	Venue string `json:"venue"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// Number of guests
	Guests int `json:"guests"`
}

// BookVenue books a venue for the couple on a future date it is free, within its capacity, with no packages; the deposit is 25% of the venue price.
func BookVenue(args BookVenueArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM couples WHERE id = ?`, args.CoupleID); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("couple %s not found", args.CoupleID)
	} else if err != nil {
		return nil, err
	}
	v, err := sdk.QueryRow(`SELECT * FROM venues WHERE lower(name) = lower(?)`, strings.TrimSpace(args.Venue))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("venue %q not found", args.Venue)
	}
	if err != nil {
		return nil, err
	}
	days, err := daysUntil(args.Date)
	if err != nil {
		return nil, err
	}
	if days <= 0 {
		return nil, errors.New("the wedding date must be in the future")
	}
	if args.Guests < 1 || int64(args.Guests) > v.Int("capacity") {
		return nil, fmt.Errorf("%s holds at most %d guests", v.String("name"), v.Int("capacity"))
	}
	free, err := venueFree(v.String("id"), strings.TrimSpace(args.Date), "")
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, fmt.Errorf("%s is already booked on %s", v.String("name"), args.Date)
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 4) AS INTEGER)), 300) + 1 AS n FROM bookings WHERE id LIKE 'WV-%'`)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("WV-%d", next.Int("n"))
	deposit := round2((v.Float("base_price") + v.Float("per_guest")*float64(args.Guests)) * 0.25)
	if _, err := sdk.Exec(`INSERT INTO bookings (id, couple_id, venue_id, wedding_date, guests, status, fees, deposit, paid, refunded, created_at) VALUES (?, ?, ?, ?, ?, 'booked', 0, ?, 0, 0, ?)`,
		id, args.CoupleID, v.String("id"), strings.TrimSpace(args.Date), args.Guests, deposit, sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	return bookingView(id)
}

type ChangeGuestsArgs struct {
	// Booking reference
	BookingID string `json:"booking_id"`
	// New number of guests
	Guests int `json:"guests"`
}

// ChangeGuests changes the guest count of a booked wedding up to the venue's capacity; prices follow the per-guest rates.
func ChangeGuests(args ChangeGuestsArgs) (map[string]any, error) {
	b, _, err := activeBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	if args.Guests < 1 || int64(args.Guests) > b.Int("capacity") {
		return nil, fmt.Errorf("%s holds at most %d guests", b.String("venue"), b.Int("capacity"))
	}
	if _, err := sdk.Exec(`UPDATE bookings SET guests = ? WHERE id = ?`, args.Guests, b.String("id")); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

type PackageArgs struct {
	// Booking reference
	BookingID string `json:"booking_id"`
	// catering, flowers or band
	Package string `json:"package"`
}

// AddPackage adds a package (catering, flowers or band) to a booked wedding 30 or more days away.
func AddPackage(args PackageArgs) (map[string]any, error) {
	b, days, err := activeBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	code := strings.ToLower(strings.TrimSpace(args.Package))
	if _, err := sdk.QueryRow(`SELECT code FROM packages WHERE code = ?`, code); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("unknown package %q: use catering, flowers or band", args.Package)
	} else if err != nil {
		return nil, err
	}
	if days < 30 {
		return nil, fmt.Errorf("the wedding is %d days away: packages can only be changed 30 or more days before", days)
	}
	if _, err := sdk.QueryRow(`SELECT package_code FROM booking_packages WHERE booking_id = ? AND package_code = ?`, b.String("id"), code); err == nil {
		return nil, fmt.Errorf("booking %s already has the %s package", b.String("id"), code)
	}
	if _, err := sdk.Exec(`INSERT INTO booking_packages (booking_id, package_code) VALUES (?, ?)`, b.String("id"), code); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

// RemovePackage removes a package from a booked wedding 30 or more days away.
func RemovePackage(args PackageArgs) (map[string]any, error) {
	b, days, err := activeBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	code := strings.ToLower(strings.TrimSpace(args.Package))
	if _, err := sdk.QueryRow(`SELECT package_code FROM booking_packages WHERE booking_id = ? AND package_code = ?`, b.String("id"), code); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("booking %s has no %s package", b.String("id"), args.Package)
	} else if err != nil {
		return nil, err
	}
	if days < 30 {
		return nil, fmt.Errorf("the wedding is %d days away: packages can only be changed 30 or more days before", days)
	}
	if _, err := sdk.Exec(`DELETE FROM booking_packages WHERE booking_id = ? AND package_code = ?`, b.String("id"), code); err != nil {
		return nil, err
	}
	return bookingView(b.String("id"))
}

type MoveDateArgs struct {
	// Booking reference
	BookingID string `json:"booking_id"`
	// YYYY-MM-DD
	NewDate string `json:"new_date"`
}

// MoveDate moves a booked wedding to a future date its venue is free; a 500.00 fee when the current date is less than 180 days away.
func MoveDate(args MoveDateArgs) (map[string]any, error) {
	b, days, err := activeBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	newDate := strings.TrimSpace(args.NewDate)
	nd, err := daysUntil(newDate)
	if err != nil {
		return nil, err
	}
	if nd <= 0 {
		return nil, errors.New("the new date must be in the future")
	}
	if newDate == b.String("wedding_date") {
		return nil, fmt.Errorf("booking %s is already on %s", b.String("id"), newDate)
	}
	free, err := venueFree(b.String("venue_id"), newDate, b.String("id"))
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, fmt.Errorf("%s is already booked on %s", b.String("venue"), newDate)
	}
	fee := 0.0
	if days < 180 {
		fee = moveFee
	}
	if _, err := sdk.Exec(`UPDATE bookings SET wedding_date = ?, fees = ROUND(fees + ?, 2) WHERE id = ?`, newDate, fee, b.String("id")); err != nil {
		return nil, err
	}
	view, err := bookingView(b.String("id"))
	if err != nil {
		return nil, err
	}
	view["fee_charged"] = fee
	return view, nil
}

// CancelBooking cancels a booked wedding: the deposit is kept and the rest of what was paid refunded.
func CancelBooking(args BookingArgs) (map[string]any, error) {
	b, _, err := activeBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	refund := round2(b.Float("paid") - b.Float("deposit"))
	if refund < 0 {
		refund = 0
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', refunded = ? WHERE id = ?`, refund, b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "status": "cancelled", "deposit_kept": b.Float("deposit"), "refund": refund}, nil
}
