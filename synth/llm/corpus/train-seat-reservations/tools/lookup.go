package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// now is the clock as stored times are written.
func now() string { return sdk.Now().UTC().Format(time.RFC3339) }

// bookingTicket returns a ticket of the booking with its train.
func bookingTicket(ref, ticketID string) (t sdk.Row, err error) {
	t, err = sdk.QueryRow("SELECT t.id, t.booking_ref, t.passenger, t.class, t.flexibility, t.price, t.train_id, tr.origin, tr.destination, tr.departs_at, tr.delay_minutes, tr.bike_spaces FROM tickets t JOIN trains tr ON tr.id = t.train_id WHERE t.id = ?", ticketID)
	if errors.Is(err, sdk.ErrNoRows) {
		return t, fmt.Errorf("no ticket with id %q", ticketID)
	}
	if err != nil {
		return t, err
	}
	if !strings.EqualFold(t.String("booking_ref"), strings.TrimSpace(ref)) {
		return t, fmt.Errorf("ticket %s is not on booking %s", ticketID, ref)
	}
	return t, nil
}

// departed fails when a train has already left.
func notDeparted(departsAt string) error {
	if departsAt <= now() {
		return fmt.Errorf("the train departed at %s", departsAt)
	}
	return nil
}

// freeSeat checks a seat is on the train, of the class and not reserved.
func freeSeat(trainID, seatID, class string) error {
	s, err := sdk.QueryRow("SELECT c.train_id, c.class FROM seats s JOIN coaches c ON c.id = s.coach_id WHERE s.id = ?", seatID)
	if errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("no seat with id %q", seatID)
	}
	if err != nil {
		return err
	}
	if s.String("train_id") != trainID {
		return fmt.Errorf("seat %s is not on train %s", seatID, trainID)
	}
	if s.String("class") != class {
		return fmt.Errorf("seat %s is %s class; the ticket is %s", seatID, s.String("class"), class)
	}
	taken, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM reservations WHERE train_id = ? AND seat_id = ? AND status = 'active'", trainID, seatID)
	if err != nil {
		return err
	}
	if taken.Int("n") > 0 {
		return fmt.Errorf("seat %s is already reserved", seatID)
	}
	return nil
}

// newID numbers a new row of a table after its count.
func newID(prefix, table string) (string, error) {
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM " + table)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d", prefix, 101+n.Int("n")), nil
}

// VerifyBookingArgs are verify_booking's arguments.
type VerifyBookingArgs struct {
	// booking reference such as QX7K2M
	Ref string `json:"ref"`
	// lead passenger's surname
	Surname string `json:"surname"`
}

// VerifyBooking verifies a booking and lists its tickets.
func VerifyBooking(args VerifyBookingArgs) (map[string]any, error) {
	b, err := sdk.QueryRow("SELECT ref, surname, lead_name FROM bookings WHERE upper(ref) = upper(?)", strings.TrimSpace(args.Ref))
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && !strings.EqualFold(b.String("surname"), strings.TrimSpace(args.Surname))) {
		return nil, errors.New("no booking matches that reference and surname")
	}
	if err != nil {
		return nil, err
	}
	tickets, err := sdk.Query("SELECT t.id, t.passenger, t.class, t.flexibility, t.price, t.train_id, tr.origin, tr.destination, tr.departs_at, tr.delay_minutes, r.seat_id, c.letter AS coach, c.quiet, (SELECT COUNT(*) FROM bike_reservations bk WHERE bk.ticket_id = t.id AND bk.train_id = t.train_id AND bk.status = 'active') AS bike_space, (SELECT cc.amount FROM compensation_claims cc WHERE cc.ticket_id = t.id) AS delay_claim_amount FROM tickets t JOIN trains tr ON tr.id = t.train_id LEFT JOIN reservations r ON r.ticket_id = t.id AND r.train_id = t.train_id AND r.status = 'active' LEFT JOIN seats s ON s.id = r.seat_id LEFT JOIN coaches c ON c.id = s.coach_id WHERE t.booking_ref = ? ORDER BY tr.departs_at, t.id", b.String("ref"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"ref": b.String("ref"), "lead_name": b.String("lead_name"), "tickets": tickets}, nil
}

// freeCount is a subquery counting a train's free seats in coaches matching cond.
func freeCount(cond string) string {
	return "(SELECT COUNT(*) FROM seats s JOIN coaches c ON c.id = s.coach_id WHERE c.train_id = tr.id AND " + cond + " AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.train_id = tr.id AND r.seat_id = s.id AND r.status = 'active'))"
}

// SearchTrainsArgs are search_trains' arguments.
type SearchTrainsArgs struct {
	// station such as London Euston
	Origin string `json:"origin"`
	// station such as Manchester Piccadilly
	Destination string `json:"destination"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// SearchTrains lists a day's trains between two stations with what is free.
func SearchTrains(args SearchTrainsArgs) (sdk.Rows, error) {
	return sdk.Query("SELECT tr.id, tr.service, tr.departs_at, tr.arrives_at, "+
		freeCount("c.class = 'first'")+" AS free_first, "+
		freeCount("c.class = 'standard'")+" AS free_standard, "+
		freeCount("c.quiet = 1")+" AS free_quiet, "+
		"tr.bike_spaces - (SELECT COUNT(*) FROM bike_reservations b WHERE b.train_id = tr.id AND b.status = 'active') AS free_bike_spaces "+
		"FROM trains tr WHERE lower(tr.origin) = lower(?) AND lower(tr.destination) = lower(?) AND substr(tr.departs_at, 1, 10) = ? ORDER BY tr.departs_at",
		strings.TrimSpace(args.Origin), strings.TrimSpace(args.Destination), args.Date)
}

// ListFreeSeatsArgs are list_free_seats' arguments.
type ListFreeSeatsArgs struct {
	// the train's id
	TrainID string `json:"train_id"`
	// standard or first
	Class string `json:"class,omitempty"`
	// only the quiet coach
	Quiet bool `json:"quiet,omitempty"`
}

// ListFreeSeats lists a train's free seats.
func ListFreeSeats(args ListFreeSeatsArgs) (out sdk.Rows, err error) {
	if _, err := sdk.QueryRow("SELECT id FROM trains WHERE id = ?", args.TrainID); err != nil {
		if errors.Is(err, sdk.ErrNoRows) {
			return out, fmt.Errorf("no train with id %q", args.TrainID)
		}
		return out, err
	}
	q := "SELECT s.id, c.letter AS coach, c.class, c.quiet, s.row_no, s.number, s.position FROM seats s JOIN coaches c ON c.id = s.coach_id WHERE c.train_id = ? AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.train_id = c.train_id AND r.seat_id = s.id AND r.status = 'active')"
	params := []any{args.TrainID}
	if args.Class != "" {
		q += " AND c.class = ?"
		params = append(params, args.Class)
	}
	if args.Quiet {
		q += " AND c.quiet = 1"
	}
	return sdk.Query(q+" ORDER BY c.letter, s.row_no, s.number", params...)
}
