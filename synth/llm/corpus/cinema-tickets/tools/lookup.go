package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindMemberArgs struct {
	// The member's email.
	Email string `json:"email"`
}

// FindMember looks a member up by email.
func FindMember(args FindMemberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, points FROM members WHERE LOWER(email) = LOWER(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no member with email %q", args.Email)
	}
	return row, err
}

type SearchScreeningsArgs struct {
	// Film title, e.g. 'Orbit'.
	FilmTitle string `json:"film_title"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// 2D, 3D or IMAX (optional).
	Format string `json:"format,omitempty"`
}

type ScreeningOut struct {
	ScreeningID string  `json:"screening_id"`
	Film        string  `json:"film"`
	StartsAt    string  `json:"starts_at"`
	Screen      string  `json:"screen"`
	Format      string  `json:"format"`
	AdultPrice  float64 `json:"adult_price"`
	ChildPrice  float64 `json:"child_price"`
	AgeRating   string  `json:"age_rating"`
	MinAge      int64   `json:"min_age"`
	FreeSeats   int64   `json:"free_seats"`
}

// SearchScreenings lists a film's screenings on a date, earliest first.
func SearchScreenings(args SearchScreeningsArgs) ([]ScreeningOut, error) {
	film, err := sdk.QueryRow("SELECT id, title FROM films WHERE LOWER(title) = LOWER(?)", strings.TrimSpace(args.FilmTitle))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no film titled %q", args.FilmTitle)
	}
	if err != nil {
		return nil, err
	}
	out := []ScreeningOut{}
	err = list(&out, `SELECT json_object('screening_id', s.id, 'film', f.title, 'starts_at', s.starts_at, 'screen', sc.name, 'format', s.format,
		'adult_price', s.adult_price, 'child_price', s.child_price, 'age_rating', f.age_rating, 'min_age', f.min_age,
		'free_seats', (SELECT COUNT(*) FROM seats st WHERE st.screen_id = s.screen_id) -
		(SELECT COUNT(*) FROM booking_seats bs JOIN bookings b ON b.id = bs.booking_id WHERE b.screening_id = s.id AND b.status = 'booked')) AS j
		FROM screenings s JOIN films f ON f.id = s.film_id JOIN screens sc ON sc.id = s.screen_id
		WHERE s.film_id = ? AND substr(s.starts_at, 1, 10) = ? AND (? = '' OR UPPER(s.format) = UPPER(?))
		ORDER BY s.starts_at, s.id`, film.String("id"), strings.TrimSpace(args.Date), args.Format, args.Format)
	return out, err
}

type GetSeatMapArgs struct {
	// Screening id, e.g. 'S03'.
	ScreeningID string `json:"screening_id"`
}

type SeatOut struct {
	Label string `json:"label"`
	Row   string `json:"row"`
	Free  bool   `json:"free"`
}

type SeatMapOut struct {
	ScreeningID string    `json:"screening_id"`
	Film        string    `json:"film"`
	StartsAt    string    `json:"starts_at"`
	Format      string    `json:"format"`
	FreeSeats   int       `json:"free_seats"`
	Seats       []SeatOut `json:"seats"`
}

// GetSeatMap returns every seat of a screening with whether it is free.
func GetSeatMap(args GetSeatMapArgs) (SeatMapOut, error) {
	s, err := screeningRow(upper(args.ScreeningID))
	if err != nil {
		return SeatMapOut{}, err
	}
	seats := []SeatOut{}
	if err := list(&seats, `SELECT json_object('label', st.label, 'row', st.seat_row, 'free', json(CASE WHEN
		(SELECT COUNT(*) FROM booking_seats bs JOIN bookings b ON b.id = bs.booking_id
		 WHERE b.screening_id = ? AND b.status = 'booked' AND bs.seat_label = st.label) = 0 THEN 'true' ELSE 'false' END)) AS j
		FROM seats st WHERE st.screen_id = ? ORDER BY st.seat_row, st.seat_number`, s.String("id"), s.String("screen_id")); err != nil {
		return SeatMapOut{}, err
	}
	free := 0
	for _, st := range seats {
		if st.Free {
			free++
		}
	}
	return SeatMapOut{ScreeningID: s.String("id"), Film: s.String("title"), StartsAt: s.String("starts_at"),
		Format: s.String("format"), FreeSeats: free, Seats: seats}, nil
}

// ListSnackCombos lists the snack combos.
func ListSnackCombos() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, price, includes_drink FROM snack_combos ORDER BY price, id")
}

type ListBookingsArgs struct {
	// Member id.
	MemberID string `json:"member_id"`
}

type TicketOut struct {
	Seat       string  `json:"seat"`
	TicketType string  `json:"ticket_type"`
	Age        *int64  `json:"attendee_age,omitempty"`
	PricePaid  float64 `json:"price_paid"`
	WithPoints bool    `json:"paid_with_points"`
}

type SnackOut struct {
	Combo     string  `json:"combo"`
	Quantity  int64   `json:"quantity"`
	UnitPrice float64 `json:"unit_price"`
}

type BookingOut struct {
	BookingID    int64       `json:"booking_id"`
	Film         string      `json:"film"`
	ScreeningID  string      `json:"screening_id"`
	StartsAt     string      `json:"starts_at"`
	Format       string      `json:"format"`
	Status       string      `json:"status"`
	Payment      string      `json:"payment"`
	PointsUsed   int64       `json:"points_used"`
	Tickets      []TicketOut `json:"tickets"`
	Snacks       []SnackOut  `json:"snacks"`
	TicketsTotal float64     `json:"tickets_total"`
	SnacksTotal  float64     `json:"snacks_total"`
	Total        float64     `json:"total"`
	RefundAmount *float64    `json:"refund_amount,omitempty"`
}

// ListBookings lists a member's bookings, earliest screening first.
func ListBookings(args ListBookingsArgs) ([]BookingOut, error) {
	if _, err := memberRow(args.MemberID); err != nil {
		return nil, err
	}
	var ids []struct {
		ID int64 `json:"id"`
	}
	if err := list(&ids, `SELECT json_object('id', b.id) AS j FROM bookings b JOIN screenings s ON s.id = b.screening_id
		WHERE b.member_id = ? ORDER BY s.starts_at, b.id`, args.MemberID); err != nil {
		return nil, err
	}
	out := []BookingOut{}
	for _, id := range ids {
		b, err := loadBooking(id.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func bookingDetail(r sdk.Row) (BookingOut, error) {
	b := BookingOut{BookingID: r.Int("id"), Film: r.String("title"), ScreeningID: r.String("screening_id"), StartsAt: r.String("starts_at"),
		Format: r.String("format"), Status: r.String("status"), Payment: r.String("payment"), PointsUsed: r.Int("points_used"),
		Tickets: []TicketOut{}, Snacks: []SnackOut{}}
	if !r.IsNull("refund_amount") {
		v := r.Float("refund_amount")
		b.RefundAmount = &v
	}
	if err := list(&b.Tickets, `SELECT json_object('seat', seat_label, 'ticket_type', ticket_type, 'attendee_age', attendee_age, 'price_paid', price_paid,
		'paid_with_points', json(CASE WHEN paid_with_points = 1 THEN 'true' ELSE 'false' END)) AS j
		FROM booking_seats WHERE booking_id = ? ORDER BY seat_label`, b.BookingID); err != nil {
		return b, err
	}
	for _, t := range b.Tickets {
		b.TicketsTotal += t.PricePaid
	}
	if err := list(&b.Snacks, `SELECT json_object('combo', c.name, 'quantity', bs.quantity, 'unit_price', bs.unit_price) AS j
		FROM booking_snacks bs JOIN snack_combos c ON c.id = bs.combo_id WHERE bs.booking_id = ? ORDER BY bs.id`, b.BookingID); err != nil {
		return b, err
	}
	for _, s := range b.Snacks {
		b.SnacksTotal += float64(s.Quantity) * s.UnitPrice
	}
	b.TicketsTotal, b.SnacksTotal = money(b.TicketsTotal), money(b.SnacksTotal)
	b.Total = money(b.TicketsTotal + b.SnacksTotal)
	return b, nil
}
