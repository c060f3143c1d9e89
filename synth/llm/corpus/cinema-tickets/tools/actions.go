package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type BookTicketsArgs struct {
	// Member id.
	MemberID string `json:"member_id"`
	// Screening id.
	ScreeningID string `json:"screening_id"`
	// Seats, e.g. ['F5','F6'].
	SeatLabels []string `json:"seat_labels"`
	// adult or child per seat (default: all adult).
	TicketTypes []string `json:"ticket_types,omitempty"`
	// Age per seat (0 for an adult); required for child tickets.
	AttendeeAges []int `json:"attendee_ages,omitempty"`
	// card (default) or tuesday_discount, for the tickets not paid with points.
	Payment string `json:"payment,omitempty"`
	// How many of the tickets to pay with points (100 points each; default 0).
	PointsTickets int `json:"points_tickets,omitempty"`
}

// BookTickets books seats at a screening for the member.
func BookTickets(args BookTicketsArgs) (BookingOut, error) {
	var none BookingOut
	m, err := memberRow(args.MemberID)
	if err != nil {
		return none, err
	}
	s, err := screeningRow(upper(args.ScreeningID))
	if err != nil {
		return none, err
	}
	start, err := startsAt(s)
	if err != nil {
		return none, err
	}
	if !start.After(sdk.Now()) {
		return none, fmt.Errorf("screening %s has already started", s.String("id"))
	}
	n := len(args.SeatLabels)
	if n == 0 {
		return none, fmt.Errorf("no seats given")
	}
	if len(args.TicketTypes) != 0 && len(args.TicketTypes) != n {
		return none, fmt.Errorf("ticket_types has %d entries for %d seats", len(args.TicketTypes), n)
	}
	if len(args.AttendeeAges) != 0 && len(args.AttendeeAges) != n {
		return none, fmt.Errorf("attendee_ages has %d entries for %d seats", len(args.AttendeeAges), n)
	}
	payment := strings.ToLower(strings.TrimSpace(args.Payment))
	if payment == "" {
		payment = "card"
	}
	if payment != "card" && payment != "tuesday_discount" {
		return none, fmt.Errorf("payment must be card or tuesday_discount, not %q", args.Payment)
	}
	if payment == "tuesday_discount" && start.Weekday() != time.Tuesday {
		return none, fmt.Errorf("the member discount applies only on Tuesdays; screening %s is on a %s", s.String("id"), start.Weekday())
	}
	if args.PointsTickets < 0 || args.PointsTickets > n {
		return none, fmt.Errorf("points_tickets must be between 0 and %d", n)
	}
	if need := int64(args.PointsTickets) * 100; need > m.Int("points") {
		return none, fmt.Errorf("paying %d tickets with points needs %d points; the member has %d", args.PointsTickets, need, m.Int("points"))
	}
	seen := map[string]bool{}
	type ticket struct {
		seat, kind string
		age        *int
		price      float64
		points     bool
	}
	var tickets []ticket
	for i, raw := range args.SeatLabels {
		label := upper(raw)
		if seen[label] {
			return none, fmt.Errorf("seat %s is given twice", label)
		}
		seen[label] = true
		ok, err := seatExists(s.String("screen_id"), label)
		if err != nil {
			return none, err
		}
		if !ok {
			return none, fmt.Errorf("seat %s does not exist on this screen", label)
		}
		if by, err := seatTakenBy(s.String("id"), label); err != nil {
			return none, err
		} else if by != 0 {
			return none, fmt.Errorf("seat %s is already taken at screening %s", label, s.String("id"))
		}
		kind := "adult"
		if len(args.TicketTypes) > 0 {
			kind = strings.ToLower(strings.TrimSpace(args.TicketTypes[i]))
		}
		t := ticket{seat: label, kind: kind}
		switch kind {
		case "adult":
			t.price = s.Float("adult_price")
		case "child":
			if len(args.AttendeeAges) == 0 || args.AttendeeAges[i] <= 0 {
				return none, fmt.Errorf("the child ticket for seat %s needs the child's age", label)
			}
			age := args.AttendeeAges[i]
			if int64(age) < s.Int("min_age") {
				return none, fmt.Errorf("%s is rated %s: a child of %d cannot be booked in (minimum age %d)", s.String("title"), s.String("age_rating"), age, s.Int("min_age"))
			}
			t.age = &age
			t.price = s.Float("child_price")
		default:
			return none, fmt.Errorf("ticket type must be adult or child, not %q", kind)
		}
		if i < args.PointsTickets {
			t.points, t.price = true, 0
		} else if payment == "tuesday_discount" {
			t.price = money(t.price * 0.8)
		}
		tickets = append(tickets, t)
	}
	pay := payment
	if args.PointsTickets == n {
		pay = "points"
	} else if args.PointsTickets > 0 {
		pay = "mixed"
	}
	res, err := sdk.Exec("INSERT INTO bookings (member_id, screening_id, status, payment, points_used, created_at) VALUES (?, ?, 'booked', ?, ?, ?)",
		m.String("id"), s.String("id"), pay, args.PointsTickets*100, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return none, err
	}
	id := res.LastInsertID
	for _, t := range tickets {
		var age any
		if t.age != nil {
			age = *t.age
		}
		pts := 0
		if t.points {
			pts = 1
		}
		if _, err := sdk.Exec("INSERT INTO booking_seats (booking_id, seat_label, ticket_type, attendee_age, price_paid, paid_with_points) VALUES (?, ?, ?, ?, ?, ?)",
			id, t.seat, t.kind, age, t.price, pts); err != nil {
			return none, err
		}
	}
	if args.PointsTickets > 0 {
		if _, err := sdk.Exec("UPDATE members SET points = points - ? WHERE id = ?", args.PointsTickets*100, m.String("id")); err != nil {
			return none, err
		}
	}
	return loadBooking(id)
}

func loadBooking(id int64) (BookingOut, error) {
	r, err := sdk.QueryRow(`SELECT b.id, b.screening_id, b.status, b.payment, b.points_used, b.refund_amount, s.starts_at, s.format, f.title
		FROM bookings b JOIN screenings s ON s.id = b.screening_id JOIN films f ON f.id = s.film_id WHERE b.id = ?`, id)
	if err != nil {
		return BookingOut{}, err
	}
	return bookingDetail(r)
}

type AddSnacksArgs struct {
	// Member id.
	MemberID string `json:"member_id"`
	// Booking id.
	BookingID int64 `json:"booking_id"`
	// Snack combo id.
	ComboID string `json:"combo_id"`
	// How many.
	Quantity int `json:"quantity"`
}

// AddSnacks adds a quantity of one snack combo to a booking.
func AddSnacks(args AddSnacksArgs) (BookingOut, error) {
	b, err := ownBooking(args.MemberID, args.BookingID)
	if err != nil {
		return BookingOut{}, err
	}
	if b.String("status") != "booked" {
		return BookingOut{}, fmt.Errorf("booking %d is %s", args.BookingID, b.String("status"))
	}
	if args.Quantity < 1 {
		return BookingOut{}, fmt.Errorf("quantity must be at least 1")
	}
	c, err := sdk.QueryRow("SELECT id, price FROM snack_combos WHERE UPPER(id) = ?", upper(args.ComboID))
	if err != nil {
		return BookingOut{}, fmt.Errorf("no snack combo %q", args.ComboID)
	}
	if _, err := sdk.Exec("INSERT INTO booking_snacks (booking_id, combo_id, quantity, unit_price) VALUES (?, ?, ?, ?)",
		args.BookingID, c.String("id"), args.Quantity, c.Float("price")); err != nil {
		return BookingOut{}, err
	}
	return loadBooking(args.BookingID)
}

type SwapBookingArgs struct {
	// Member id.
	MemberID string `json:"member_id"`
	// Booking id.
	BookingID int64 `json:"booking_id"`
	// Screening to move to.
	NewScreeningID string `json:"new_screening_id"`
}

// SwapBooking moves a booking to another screening of the same film.
func SwapBooking(args SwapBookingArgs) (BookingOut, error) {
	var none BookingOut
	b, err := ownBooking(args.MemberID, args.BookingID)
	if err != nil {
		return none, err
	}
	if b.String("status") != "booked" {
		return none, fmt.Errorf("booking %d is %s", args.BookingID, b.String("status"))
	}
	old, err := screeningRow(b.String("screening_id"))
	if err != nil {
		return none, err
	}
	oldStart, err := startsAt(old)
	if err != nil {
		return none, err
	}
	if oldStart.Sub(sdk.Now()) < 2*time.Hour {
		return none, fmt.Errorf("booking %d cannot be swapped: its screening starts at %s, less than 2 hours from now", args.BookingID, old.String("starts_at"))
	}
	nw, err := screeningRow(upper(args.NewScreeningID))
	if err != nil {
		return none, err
	}
	if nw.String("id") == old.String("id") {
		return none, fmt.Errorf("the booking is already for screening %s", nw.String("id"))
	}
	if nw.String("film_id") != old.String("film_id") {
		return none, fmt.Errorf("screening %s shows %s, not %s", nw.String("id"), nw.String("title"), old.String("title"))
	}
	newStart, err := startsAt(nw)
	if err != nil {
		return none, err
	}
	if !newStart.After(sdk.Now()) {
		return none, fmt.Errorf("screening %s has already started", nw.String("id"))
	}
	var seats []struct {
		Seat   string `json:"seat"`
		Type   string `json:"ticket_type"`
		Points int    `json:"paid_with_points"`
	}
	if err := list(&seats, `SELECT json_object('seat', seat_label, 'ticket_type', ticket_type, 'paid_with_points', paid_with_points) AS j
		FROM booking_seats WHERE booking_id = ? ORDER BY seat_label`, args.BookingID); err != nil {
		return none, err
	}
	discount := b.String("payment") == "tuesday_discount" && newStart.Weekday() == time.Tuesday
	for _, st := range seats {
		label := st.Seat
		ok, err := seatExists(nw.String("screen_id"), label)
		if err != nil {
			return none, err
		}
		if !ok {
			return none, fmt.Errorf("seat %s does not exist at screening %s", label, nw.String("id"))
		}
		if by, err := seatTakenBy(nw.String("id"), label); err != nil {
			return none, err
		} else if by != 0 {
			return none, fmt.Errorf("seat %s is taken at screening %s", label, nw.String("id"))
		}
	}
	for _, st := range seats {
		if st.Points == 1 {
			continue
		}
		price := nw.Float("adult_price")
		if st.Type == "child" {
			price = nw.Float("child_price")
		}
		if discount {
			price = money(price * 0.8)
		}
		if _, err := sdk.Exec("UPDATE booking_seats SET price_paid = ? WHERE booking_id = ? AND seat_label = ?", price, args.BookingID, st.Seat); err != nil {
			return none, err
		}
	}
	pay := b.String("payment")
	if pay == "tuesday_discount" && !discount {
		pay = "card"
	}
	if _, err := sdk.Exec("UPDATE bookings SET screening_id = ?, payment = ? WHERE id = ?", nw.String("id"), pay, args.BookingID); err != nil {
		return none, err
	}
	return loadBooking(args.BookingID)
}

type RefundBookingArgs struct {
	// Member id.
	MemberID string `json:"member_id"`
	// Booking id.
	BookingID int64 `json:"booking_id"`
}

// RefundBooking refunds a booking up to 24 hours before its screening.
func RefundBooking(args RefundBookingArgs) (map[string]any, error) {
	b, err := ownBooking(args.MemberID, args.BookingID)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "booked" {
		return nil, fmt.Errorf("booking %d is already %s", args.BookingID, b.String("status"))
	}
	s, err := screeningRow(b.String("screening_id"))
	if err != nil {
		return nil, err
	}
	start, err := startsAt(s)
	if err != nil {
		return nil, err
	}
	if start.Sub(sdk.Now()) < 24*time.Hour {
		return nil, fmt.Errorf("booking %d cannot be refunded: its screening starts at %s, less than 24 hours from now", args.BookingID, s.String("starts_at"))
	}
	detail, err := loadBooking(args.BookingID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE bookings SET status = 'refunded', refunded_at = ?, refund_amount = ? WHERE id = ?",
		sdk.Now().UTC().Format(time.RFC3339), detail.Total, args.BookingID); err != nil {
		return nil, err
	}
	if pts := b.Int("points_used"); pts > 0 {
		if _, err := sdk.Exec("UPDATE members SET points = points + ? WHERE id = ?", pts, args.MemberID); err != nil {
			return nil, err
		}
	}
	return map[string]any{"booking_id": args.BookingID, "film": s.String("title"), "starts_at": s.String("starts_at"),
		"refund_amount": detail.Total, "points_returned": b.Int("points_used"), "status": "refunded"}, nil
}
