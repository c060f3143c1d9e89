package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyTraderArgs struct {
	// Trader number, e.g. 'TR-1042'.
	TraderID string `json:"trader_id"`
	// The trader's email.
	Email string `json:"email"`
}

// VerifyTrader verifies a trader by trader number and email.
func VerifyTrader(args VerifyTraderArgs) (map[string]any, error) {
	t, err := traderRow(args.TraderID)
	if err != nil || !strings.EqualFold(t.String("email"), strings.TrimSpace(args.Email)) {
		return nil, errors.New("the trader number and email do not match a trader")
	}
	return map[string]any{"trader_id": t.String("id"), "name": t.String("name"), "category": t.String("category"),
		"hardship_waiver": t.Int("hardship_waiver") == 1, "strikes": t.Int("strikes"), "status": t.String("status"),
		"strikes_before_suspension": 3}, nil
}

type ListMarketsArgs struct {
	// Site name, e.g. 'Riverside' (optional).
	SiteName string `json:"site_name,omitempty"`
	// YYYY-MM-DD (optional).
	FromDate string `json:"from_date,omitempty"`
}

// ListMarkets lists market days, earliest first.
func ListMarkets(args ListMarketsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT m.id AS market_id, s.name AS site, m.market_date, s.fee_standard, s.fee_power FROM markets m JOIN sites s ON s.id = m.site_id
		WHERE (? = '' OR LOWER(s.name) = LOWER(?)) AND (? = '' OR m.market_date >= ?) ORDER BY m.market_date, s.name`,
		strings.TrimSpace(args.SiteName), strings.TrimSpace(args.SiteName), strings.TrimSpace(args.FromDate), strings.TrimSpace(args.FromDate))
}

type GetMarketStallsArgs struct {
	// Market id.
	MarketID string `json:"market_id"`
}

type StallOut struct {
	StallNumber int64 `json:"stall_number"`
	HasPower    bool  `json:"has_power"`
	Free        bool  `json:"free"`
}

type CategoryOut struct {
	Category   string `json:"category"`
	Traders    int64  `json:"traders"`
	PlacesLeft int64  `json:"places_left"`
}

type MarketStallsOut struct {
	MarketID    string        `json:"market_id"`
	Site        string        `json:"site"`
	Date        string        `json:"date"`
	FeeStandard float64       `json:"fee_standard"`
	FeePower    float64       `json:"fee_power"`
	Stalls      []StallOut    `json:"stalls"`
	Categories  []CategoryOut `json:"categories"`
}

// GetMarketStalls lists a market day's stalls and category counts.
func GetMarketStalls(args GetMarketStallsArgs) (MarketStallsOut, error) {
	m, err := marketRow(args.MarketID)
	if err != nil {
		return MarketStallsOut{}, err
	}
	out := MarketStallsOut{MarketID: m.String("id"), Site: m.String("site"), Date: m.String("market_date"),
		FeeStandard: m.Float("fee_standard"), FeePower: m.Float("fee_power"), Stalls: []StallOut{}, Categories: []CategoryOut{}}
	if err := list(&out.Stalls, `SELECT json_object('stall_number', st.stall_number, 'has_power', json(CASE WHEN st.has_power = 1 THEN 'true' ELSE 'false' END),
		'free', json(CASE WHEN (SELECT COUNT(*) FROM bookings b WHERE b.market_id = ? AND b.stall_number = st.stall_number AND b.status = 'booked') = 0
		THEN 'true' ELSE 'false' END)) AS j
		FROM stalls st WHERE st.site_id = ? ORDER BY st.stall_number`, m.String("id"), m.String("site_id")); err != nil {
		return MarketStallsOut{}, err
	}
	if err := list(&out.Categories, `SELECT json_object('category', c.name, 'traders', n, 'places_left', c.max_traders_per_market - n) AS j FROM
		(SELECT c.id, c.name, c.max_traders_per_market, (SELECT COUNT(DISTINCT b.trader_id) FROM bookings b JOIN traders t ON t.id = b.trader_id
		 WHERE b.market_id = ? AND b.status = 'booked' AND t.category_id = c.id) AS n FROM categories c) c ORDER BY c.name`, m.String("id")); err != nil {
		return MarketStallsOut{}, err
	}
	return out, nil
}

type ListTraderBookingsArgs struct {
	// Trader id.
	TraderID string `json:"trader_id"`
}

// ListTraderBookings lists a trader's bookings.
func ListTraderBookings(args ListTraderBookingsArgs) (sdk.Rows, error) {
	t, err := traderRow(args.TraderID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, b.market_id, s.name AS site, m.market_date, b.stall_number, st.has_power, b.fee, b.status, b.refund
		FROM bookings b JOIN markets m ON m.id = b.market_id JOIN sites s ON s.id = m.site_id
		JOIN stalls st ON st.site_id = m.site_id AND st.stall_number = b.stall_number
		WHERE b.trader_id = ? ORDER BY m.market_date, b.stall_number`, t.String("id"))
}

type BookStallArgs struct {
	// Trader id.
	TraderID string `json:"trader_id"`
	// Market id.
	MarketID string `json:"market_id"`
	// Stall number.
	StallNumber int `json:"stall_number"`
}

// BookStall books a stall at a market day for a trader.
func BookStall(args BookStallArgs) (map[string]any, error) {
	t, err := traderRow(args.TraderID)
	if err != nil {
		return nil, err
	}
	m, err := marketRow(args.MarketID)
	if err != nil {
		return nil, err
	}
	fee, err := checkStall(t, m, args.StallNumber, 0)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec("INSERT INTO bookings (trader_id, market_id, stall_number, fee, status, booked_at) VALUES (?, ?, ?, ?, 'booked', ?)",
		t.String("id"), m.String("id"), args.StallNumber, fee, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": res.LastInsertID, "market_id": m.String("id"), "site": m.String("site"), "date": m.String("market_date"),
		"stall_number": args.StallNumber, "fee": fee}, nil
}

type MoveBookingArgs struct {
	// Trader id.
	TraderID string `json:"trader_id"`
	// Booking id.
	BookingID int64 `json:"booking_id"`
	// Market to move to.
	MarketID string `json:"market_id"`
	// Stall to move to.
	StallNumber int `json:"stall_number"`
}

// MoveBooking moves a booked stall to another stall or market day.
func MoveBooking(args MoveBookingArgs) (map[string]any, error) {
	b, err := ownBooking(args.TraderID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "booked" {
		return nil, fmt.Errorf("booking %d is %s", args.BookingID, b.String("status"))
	}
	t, err := traderRow(b.String("trader_id"))
	if err != nil {
		return nil, err
	}
	old, err := marketRow(b.String("market_id"))
	if err != nil {
		return nil, err
	}
	if d, err := marketDate(old); err != nil {
		return nil, err
	} else if d.Before(today()) {
		return nil, fmt.Errorf("booking %d is for a past market", args.BookingID)
	}
	m, err := marketRow(args.MarketID)
	if err != nil {
		return nil, err
	}
	fee, err := checkStall(t, m, args.StallNumber, args.BookingID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET market_id = ?, stall_number = ?, fee = ? WHERE id = ?", m.String("id"), args.StallNumber, fee, args.BookingID); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": args.BookingID, "market_id": m.String("id"), "site": m.String("site"), "date": m.String("market_date"),
		"stall_number": args.StallNumber, "fee": fee}, nil
}

type CancelBookingArgs struct {
	// Trader id.
	TraderID string `json:"trader_id"`
	// Booking id.
	BookingID int64 `json:"booking_id"`
}

// CancelBooking cancels a booked stall: full refund 7 or more days ahead, half otherwise.
func CancelBooking(args CancelBookingArgs) (map[string]any, error) {
	b, err := ownBooking(args.TraderID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "booked" {
		return nil, fmt.Errorf("booking %d is %s and cannot be cancelled", args.BookingID, b.String("status"))
	}
	m, err := marketRow(b.String("market_id"))
	if err != nil {
		return nil, err
	}
	d, err := marketDate(m)
	if err != nil {
		return nil, err
	}
	if d.Before(today()) {
		return nil, fmt.Errorf("booking %d is for a past market", args.BookingID)
	}
	refund := b.Float("fee")
	if d.Sub(today()) < 7*24*time.Hour {
		refund = money(refund / 2)
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'cancelled', cancelled_at = ?, refund = ? WHERE id = ?",
		sdk.Now().UTC().Format(time.RFC3339), refund, args.BookingID); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": args.BookingID, "market_id": m.String("id"), "date": m.String("market_date"), "fee": b.Float("fee"), "refund": refund}, nil
}
