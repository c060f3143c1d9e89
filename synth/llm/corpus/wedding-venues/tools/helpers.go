package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const moveFee = 500.0

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// daysUntil is how many days a date lies after today.
func daysUntil(date string) (int, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(date))
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: use YYYY-MM-DD", date)
	}
	t, _ := time.Parse("2006-01-02", today())
	return int(math.Round(d.Sub(t).Hours() / 24)), nil
}

func loadBooking(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.*, v.name AS venue, v.capacity, v.base_price, v.per_guest FROM bookings b JOIN venues v ON v.id = b.venue_id WHERE b.id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("booking %s not found", id)
	}
	return b, err
}

// activeBooking loads a booked wedding that has not yet taken place.
func activeBooking(id string) (sdk.Row, int, error) {
	b, err := loadBooking(id)
	if err != nil {
		return b, 0, err
	}
	if b.String("status") != "booked" {
		return b, 0, fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	days, err := daysUntil(b.String("wedding_date"))
	if err != nil {
		return b, 0, err
	}
	if days <= 0 {
		return b, 0, fmt.Errorf("the wedding of booking %s has already taken place", b.String("id"))
	}
	return b, days, nil
}

// venueFree says whether no other booked wedding holds the venue on the date.
func venueFree(venueID, date, skip string) (bool, error) {
	_, err := sdk.QueryRow(`SELECT id FROM bookings WHERE venue_id = ? AND wedding_date = ? AND status = 'booked' AND id <> ?`, venueID, date, skip)
	if errors.Is(err, sdk.ErrNoRows) {
		return true, nil
	}
	return false, err
}

// bookingView is a booking with its prices, balance and payment deadline.
func bookingView(id string) (map[string]any, error) {
	b, err := loadBooking(id)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT COALESCE(SUM(CASE WHEN k.per_guest = 1 THEN k.price * ? ELSE k.price END), 0) AS price,
		COALESCE(group_concat(k.code, ', '), '') AS codes FROM booking_packages bp JOIN packages k ON k.code = bp.package_code WHERE bp.booking_id = ?`, b.Int("guests"), b.String("id"))
	if err != nil {
		return nil, err
	}
	venuePrice := round2(b.Float("base_price") + b.Float("per_guest")*float64(b.Int("guests")))
	total := round2(venuePrice + p.Float("price") + b.Float("fees"))
	balance := round2(total - b.Float("paid"))
	if b.String("status") == "cancelled" {
		balance = 0
	}
	days, _ := daysUntil(b.String("wedding_date"))
	deadline := ""
	if d, err := time.Parse("2006-01-02", b.String("wedding_date")); err == nil {
		deadline = d.AddDate(0, 0, -60).Format("2006-01-02")
	}
	return map[string]any{"booking_id": b.String("id"), "venue": b.String("venue"), "capacity": b.Int("capacity"), "wedding_date": b.String("wedding_date"),
		"days_until_wedding": days, "guests": b.Int("guests"), "status": b.String("status"), "packages": p.String("codes"),
		"venue_price": venuePrice, "packages_price": round2(p.Float("price")), "fees": b.Float("fees"), "total": total,
		"deposit": b.Float("deposit"), "paid": b.Float("paid"), "refunded": b.Float("refunded"), "balance_due": balance, "payment_deadline": deadline}, nil
}
