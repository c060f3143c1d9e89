package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	maxFuture      = 2
	floodlightFee  = 5.0
	floodlightFrom = 19
)

func start(date string, hour int64) (time.Time, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(date))
	if err != nil {
		return d, fmt.Errorf("date %q is not in YYYY-MM-DD form", date)
	}
	return d.Add(time.Duration(hour) * time.Hour), nil
}

func checkHour(h int64) error {
	if h < 8 || h > 21 {
		return fmt.Errorf("courts are open from 8 to 21, not %d", h)
	}
	return nil
}

func getCourt(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, name, surface, hourly_fee FROM courts WHERE id = ?", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no court %q", id)
	}
	return c, err
}

func getMember(id string) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT id, name FROM members WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no member with id %q", id)
	}
	return m, err
}

// courtFree fails when another booking holds the court at that hour.
func courtFree(court, date string, hour int64, except string) error {
	if _, err := sdk.QueryRow("SELECT id FROM bookings WHERE court_id = ? AND date = ? AND hour = ? AND status = 'booked' AND id <> ?", court, date, hour, except); err == nil {
		return fmt.Errorf("court %s is taken on %s at %d:00", court, date, hour)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return err
	}
	return nil
}

// futureCount counts a member's booked bookings that have not started.
func futureCount(member string) (int, error) {
	rows, err := sdk.Query("SELECT date, hour FROM bookings WHERE member_id = ? AND status = 'booked'", member)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows.All() {
		t, err := start(r.String("date"), r.Int("hour"))
		if err != nil {
			return 0, err
		}
		if t.After(sdk.Now()) {
			n++
		}
	}
	return n, nil
}

func getBooking(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT b.id, b.member_id, b.court_id, c.name AS court, c.surface, b.date, b.hour, b.status, b.partner, b.floodlights, b.fee, b.refunded FROM bookings b JOIN courts c ON c.id = b.court_id WHERE b.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no booking %q", id)
	}
	return b, err
}

func booked(id string) (sdk.Row, error) {
	b, err := getBooking(id)
	if err == nil && b.String("status") != "booked" {
		err = fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	return b, err
}

// GetMemberArgs are the arguments of get_member.
type GetMemberArgs struct {
	// the member's email
	Email string `json:"email"`
}

// GetMember finds the signed-in member by email: member id and name.
func GetMember(args GetMemberArgs) (sdk.Row, error) {
	m, err := sdk.QueryRow("SELECT id AS member_id, name FROM members WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return m, fmt.Errorf("no member with email %q", args.Email)
	}
	return m, err
}

// ListCourts lists the courts: id, name, surface and hourly fee.
func ListCourts() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, surface, hourly_fee FROM courts ORDER BY id")
}

// FindFreeCourtsArgs are the arguments of find_free_courts.
type FindFreeCourtsArgs struct {
	// YYYY-MM-DD
	Date string `json:"date"`
	// start hour, 8 to 21
	Hour int64 `json:"hour"`
}

// FindFreeCourts lists the courts free on a date at an hour.
func FindFreeCourts(args FindFreeCourtsArgs) (sdk.Rows, error) {
	if err := checkHour(args.Hour); err != nil {
		return sdk.Rows{}, err
	}
	if _, err := start(args.Date, args.Hour); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id, name, surface, hourly_fee FROM courts c WHERE NOT EXISTS (SELECT 1 FROM bookings b WHERE b.court_id = c.id AND b.date = ? AND b.hour = ? AND b.status = 'booked') ORDER BY id", strings.TrimSpace(args.Date), args.Hour)
}

// MemberArgs name a member.
type MemberArgs struct {
	// member id
	MemberID string `json:"member_id"`
}

// ListBookings lists a member's bookings: id, court, date, hour, status,
// partner, floodlights, fee and refund, and how many future bookings they hold.
func ListBookings(args MemberArgs) (map[string]any, error) {
	if _, err := getMember(args.MemberID); err != nil {
		return nil, err
	}
	rows, err := sdk.Query("SELECT b.id, c.name AS court, c.surface, b.date, b.hour, b.status, b.partner, b.floodlights, b.fee, b.refunded FROM bookings b JOIN courts c ON c.id = b.court_id WHERE b.member_id = ? ORDER BY b.date, b.hour", args.MemberID)
	if err != nil {
		return nil, err
	}
	n, err := futureCount(args.MemberID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bookings": rows, "future_bookings": n, "future_limit": maxFuture}, nil
}

// BookCourtArgs are the arguments of book_court.
type BookCourtArgs struct {
	// member id
	MemberID string `json:"member_id"`
	// court id
	CourtID string `json:"court_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// start hour
	Hour int64 `json:"hour"`
	// add floodlights
	Floodlights bool `json:"floodlights,omitempty"`
}

// BookCourt books a free court for an hour, charging its fee, with
// floodlights if asked (outdoor, 19:00 or later, 5.00). It fails when the
// court is taken, the member already holds two future bookings, or
// floodlights are not allowed.
func BookCourt(args BookCourtArgs) (sdk.Row, error) {
	m, err := getMember(args.MemberID)
	if err != nil {
		return sdk.Row{}, err
	}
	c, err := getCourt(args.CourtID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := checkHour(args.Hour); err != nil {
		return sdk.Row{}, err
	}
	t, err := start(args.Date, args.Hour)
	if err != nil {
		return sdk.Row{}, err
	}
	if !t.After(sdk.Now()) {
		return sdk.Row{}, errors.New("that hour has already started")
	}
	date := t.Format("2006-01-02")
	if err := courtFree(c.String("id"), date, args.Hour, ""); err != nil {
		return sdk.Row{}, err
	}
	n, err := futureCount(m.String("id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if n >= maxFuture {
		return sdk.Row{}, fmt.Errorf("%s already holds %d future bookings, the most allowed", m.String("name"), maxFuture)
	}
	fee := c.Float("hourly_fee")
	lights := 0
	if args.Floodlights {
		if c.String("surface") == "indoor" || args.Hour < floodlightFrom {
			return sdk.Row{}, errors.New("floodlights are only for outdoor courts from 19:00")
		}
		fee += floodlightFee
		lights = 1
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 0) + 1 AS n FROM bookings WHERE id LIKE 'TB-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("TB-%02d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO bookings (id, member_id, court_id, date, hour, status, floodlights, fee, refunded) VALUES (?, ?, ?, ?, ?, 'booked', ?, ?, 0)", id, m.String("id"), c.String("id"), date, args.Hour, lights, fee); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(id)
}

// MoveBookingArgs are the arguments of move_booking.
type MoveBookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// court id
	CourtID string `json:"court_id"`
	// start hour
	Hour int64 `json:"hour"`
}

// MoveBooking moves a booking to another free court and/or hour on the same
// day; fees are recomputed (floodlights are dropped if no longer allowed).
func MoveBooking(args MoveBookingArgs) (sdk.Row, error) {
	b, err := booked(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	c, err := getCourt(args.CourtID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := checkHour(args.Hour); err != nil {
		return sdk.Row{}, err
	}
	if err := courtFree(c.String("id"), b.String("date"), args.Hour, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	lights := b.Int("floodlights")
	if c.String("surface") == "indoor" || args.Hour < floodlightFrom {
		lights = 0
	}
	fee := c.Float("hourly_fee") + float64(lights)*floodlightFee
	if _, err := sdk.Exec("UPDATE bookings SET court_id = ?, hour = ?, floodlights = ?, fee = ? WHERE id = ?", c.String("id"), args.Hour, lights, fee, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// AddPartnerArgs are the arguments of add_partner.
type AddPartnerArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
	// partner's name
	Partner string `json:"partner"`
}

// AddPartner names the partner on a booking.
func AddPartner(args AddPartnerArgs) (sdk.Row, error) {
	b, err := booked(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	p := strings.TrimSpace(args.Partner)
	if p == "" {
		return sdk.Row{}, errors.New("name the partner")
	}
	if _, err := sdk.Exec("UPDATE bookings SET partner = ? WHERE id = ?", p, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// BookingArgs name a booking.
type BookingArgs struct {
	// booking id
	BookingID string `json:"booking_id"`
}

// AddFloodlights adds floodlights (5.00) to an outdoor booking starting at
// 19:00 or later. It fails otherwise or when it already has them.
func AddFloodlights(args BookingArgs) (sdk.Row, error) {
	b, err := booked(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.String("surface") == "indoor" || b.Int("hour") < floodlightFrom {
		return sdk.Row{}, errors.New("floodlights are only for outdoor courts from 19:00")
	}
	if b.Int("floodlights") == 1 {
		return sdk.Row{}, errors.New("the booking already has floodlights")
	}
	if _, err := sdk.Exec("UPDATE bookings SET floodlights = 1, fee = fee + ? WHERE id = ?", floodlightFee, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}

// CancelBooking cancels a booking; its fee is refunded only 24 hours or more
// before it.
func CancelBooking(args BookingArgs) (sdk.Row, error) {
	b, err := booked(args.BookingID)
	if err != nil {
		return sdk.Row{}, err
	}
	t, err := start(b.String("date"), b.Int("hour"))
	if err != nil {
		return sdk.Row{}, err
	}
	refund := 0.0
	if t.Sub(sdk.Now()).Hours() >= 24 {
		refund = b.Float("fee")
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', refunded = ? WHERE id = ?", refund, b.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getBooking(b.String("id"))
}
