package tools

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// changeFee is charged for moving a semi-flexible ticket.
const changeFee = 10.00

// activeReservation returns the ticket's active seat reservation on a train.
func activeReservation(ticketID, trainID string) (sdk.Row, error) {
	return sdk.QueryRow("SELECT id, seat_id FROM reservations WHERE ticket_id = ? AND train_id = ? AND status = 'active'", ticketID, trainID)
}

// addCharge records a fee on the booking.
func addCharge(ref, ticketID, kind string, amount float64) error {
	_, err := sdk.Exec("INSERT INTO charges (booking_ref, ticket_id, kind, amount, created_at) VALUES (?, ?, ?, ?, ?)", ref, ticketID, kind, amount, now())
	return err
}

// reserve inserts an active seat reservation.
func reserve(ticketID, trainID, seatID string) (string, error) {
	id, err := newID("rs", "reservations")
	if err != nil {
		return "", err
	}
	_, err = sdk.Exec("INSERT INTO reservations (id, ticket_id, train_id, seat_id, status) VALUES (?, ?, ?, ?, 'active')", id, ticketID, trainID, seatID)
	return id, err
}

// ReserveSeatArgs are reserve_seat's arguments.
type ReserveSeatArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
	// the seat's id
	SeatID string `json:"seat_id"`
}

// ReserveSeat reserves a free seat of the ticket's class on its train.
func ReserveSeat(args ReserveSeatArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	if err := notDeparted(t.String("departs_at")); err != nil {
		return nil, err
	}
	if r, err := activeReservation(args.TicketID, t.String("train_id")); err == nil {
		return nil, fmt.Errorf("ticket %s already has seat %s reserved", args.TicketID, r.String("seat_id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	if err := freeSeat(t.String("train_id"), args.SeatID, t.String("class")); err != nil {
		return nil, err
	}
	id, err := reserve(args.TicketID, t.String("train_id"), args.SeatID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"reservation_id": id, "ticket_id": args.TicketID, "train_id": t.String("train_id"), "seat_id": args.SeatID}, nil
}

// ChangeTrainArgs are change_train's arguments.
type ChangeTrainArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
	// the new train's id
	TrainID string `json:"train_id"`
	// a free seat of the ticket's class on the new train
	SeatID string `json:"seat_id"`
}

// ChangeTrain moves a ticket to another train on the same route and day.
func ChangeTrain(args ChangeTrainArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("flexibility") == "advance" {
		return nil, errors.New("advance tickets are valid only on the booked train and cannot be changed")
	}
	nt, err := sdk.QueryRow("SELECT id, origin, destination, departs_at FROM trains WHERE id = ?", args.TrainID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no train with id %q", args.TrainID)
	}
	if err != nil {
		return nil, err
	}
	if args.TrainID == t.String("train_id") {
		return nil, errors.New("the ticket is already on that train")
	}
	if nt.String("origin") != t.String("origin") || nt.String("destination") != t.String("destination") {
		return nil, errors.New("the new train must run on the same route")
	}
	if nt.String("departs_at")[:10] != t.String("departs_at")[:10] {
		return nil, fmt.Errorf("the new train must run on the same day (%s)", t.String("departs_at")[:10])
	}
	if err := notDeparted(nt.String("departs_at")); err != nil {
		return nil, err
	}
	if err := freeSeat(args.TrainID, args.SeatID, t.String("class")); err != nil {
		return nil, err
	}
	fee := 0.0
	if t.String("flexibility") == "semi_flexible" {
		fee = changeFee
	}
	old := t.String("train_id")
	if _, err := sdk.Exec("UPDATE reservations SET status = 'cancelled' WHERE ticket_id = ? AND train_id = ? AND status = 'active'", args.TicketID, old); err != nil {
		return nil, err
	}
	bikes, err := sdk.Exec("UPDATE bike_reservations SET status = 'cancelled' WHERE ticket_id = ? AND train_id = ? AND status = 'active'", args.TicketID, old)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE tickets SET train_id = ? WHERE id = ?", args.TrainID, args.TicketID); err != nil {
		return nil, err
	}
	id, err := reserve(args.TicketID, args.TrainID, args.SeatID)
	if err != nil {
		return nil, err
	}
	if fee > 0 {
		if err := addCharge(t.String("booking_ref"), args.TicketID, "change_fee", fee); err != nil {
			return nil, err
		}
	}
	return map[string]any{"ticket_id": args.TicketID, "train_id": args.TrainID, "departs_at": nt.String("departs_at"), "reservation_id": id, "seat_id": args.SeatID, "fee": fee, "bike_spaces_cancelled": bikes.RowsAffected}, nil
}

// UpgradeToFirstArgs are upgrade_to_first's arguments.
type UpgradeToFirstArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
	// a free first-class seat on the ticket's train
	SeatID string `json:"seat_id"`
}

// UpgradeToFirst upgrades a standard ticket for half its price.
func UpgradeToFirst(args UpgradeToFirstArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("class") == "first" {
		return nil, errors.New("the ticket is already first class")
	}
	if err := notDeparted(t.String("departs_at")); err != nil {
		return nil, err
	}
	if err := freeSeat(t.String("train_id"), args.SeatID, "first"); err != nil {
		return nil, err
	}
	fee := math.Round(t.Float("price")*50) / 100
	if _, err := sdk.Exec("UPDATE reservations SET status = 'cancelled' WHERE ticket_id = ? AND train_id = ? AND status = 'active'", args.TicketID, t.String("train_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE tickets SET class = 'first', price = ? WHERE id = ?", math.Round((t.Float("price")+fee)*100)/100, args.TicketID); err != nil {
		return nil, err
	}
	id, err := reserve(args.TicketID, t.String("train_id"), args.SeatID)
	if err != nil {
		return nil, err
	}
	if err := addCharge(t.String("booking_ref"), args.TicketID, "upgrade", fee); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "class": "first", "reservation_id": id, "seat_id": args.SeatID, "charged": fee}, nil
}

// BookBikeSpaceArgs are book_bike_space's arguments.
type BookBikeSpaceArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
}

// BookBikeSpace books a bicycle space on the ticket's train.
func BookBikeSpace(args BookBikeSpaceArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	train := t.String("train_id")
	if err := notDeparted(t.String("departs_at")); err != nil {
		return nil, err
	}
	if _, err := activeReservation(args.TicketID, train); err != nil {
		if errors.Is(err, sdk.ErrNoRows) {
			return nil, fmt.Errorf("ticket %s has no seat reservation on train %s: a bike space needs one", args.TicketID, train)
		}
		return nil, err
	}
	used, err := sdk.QueryRow("SELECT COUNT(*) AS n, SUM(ticket_id = ?) AS mine FROM bike_reservations WHERE train_id = ? AND status = 'active'", args.TicketID, train)
	if err != nil {
		return nil, err
	}
	if used.Int("mine") > 0 {
		return nil, fmt.Errorf("ticket %s already has a bike space on this train", args.TicketID)
	}
	if used.Int("n") >= t.Int("bike_spaces") {
		return nil, fmt.Errorf("train %s has no bike space left (%d of %d taken)", train, used.Int("n"), t.Int("bike_spaces"))
	}
	id, err := newID("bk", "bike_reservations")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO bike_reservations (id, ticket_id, train_id, status) VALUES (?, ?, ?, 'active')", id, args.TicketID, train); err != nil {
		return nil, err
	}
	return map[string]any{"bike_reservation_id": id, "ticket_id": args.TicketID, "train_id": train}, nil
}

// CancelReservationArgs are cancel_reservation's arguments.
type CancelReservationArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
}

// CancelReservation cancels a ticket's seat reservation and bike space.
func CancelReservation(args CancelReservationArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	if err := notDeparted(t.String("departs_at")); err != nil {
		return nil, err
	}
	r, err := activeReservation(args.TicketID, t.String("train_id"))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("ticket %s has no active seat reservation", args.TicketID)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE reservations SET status = 'cancelled' WHERE id = ?", r.String("id")); err != nil {
		return nil, err
	}
	bikes, err := sdk.Exec("UPDATE bike_reservations SET status = 'cancelled' WHERE ticket_id = ? AND train_id = ? AND status = 'active'", args.TicketID, t.String("train_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "seat_cancelled": r.String("seat_id"), "bike_spaces_cancelled": bikes.RowsAffected}, nil
}

// FileDelayClaimArgs are file_delay_claim's arguments.
type FileDelayClaimArgs struct {
	// booking reference
	Ref string `json:"ref"`
	// the ticket's id
	TicketID string `json:"ticket_id"`
}

// FileDelayClaim files delay compensation for a travelled journey.
func FileDelayClaim(args FileDelayClaimArgs) (map[string]any, error) {
	t, err := bookingTicket(args.Ref, args.TicketID)
	if err != nil {
		return nil, err
	}
	dep, err := time.Parse(time.RFC3339, t.String("departs_at"))
	if err != nil {
		return nil, err
	}
	clock := sdk.Now().UTC()
	if !dep.Before(clock) {
		return nil, errors.New("the journey has not been travelled yet")
	}
	if clock.Sub(dep) > 28*24*time.Hour {
		return nil, fmt.Errorf("the journey on %s is more than 28 days ago: claims must be filed within 28 days", t.String("departs_at")[:10])
	}
	delay := int64(0)
	if !t.IsNull("delay_minutes") {
		delay = t.Int("delay_minutes")
	}
	percent := 0
	switch {
	case delay >= 120:
		percent = 100
	case delay >= 60:
		percent = 50
	case delay >= 30:
		percent = 25
	default:
		return nil, fmt.Errorf("the train was %d minutes late: compensation starts at 30 minutes", delay)
	}
	if c, err := sdk.QueryRow("SELECT id FROM compensation_claims WHERE ticket_id = ?", args.TicketID); err == nil {
		return nil, fmt.Errorf("ticket %s already has claim %s", args.TicketID, c.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	amount := math.Round(t.Float("price")*float64(percent)) / 100
	id, err := newID("cc", "compensation_claims")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO compensation_claims (id, ticket_id, delay_minutes, percent, amount, filed_at) VALUES (?, ?, ?, ?, ?, ?)", id, args.TicketID, delay, percent, amount, now()); err != nil {
		return nil, err
	}
	return map[string]any{"claim_id": id, "ticket_id": args.TicketID, "delay_minutes": delay, "percent": percent, "amount": amount}, nil
}
