package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// SubscriptionArgs name one of the account's subscriptions.
type SubscriptionArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
}

// ListSeats lists who holds a seat of a subscription.
func ListSeats(args SubscriptionArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT id AS assignment_id, user_name, user_email FROM seat_assignments WHERE subscription_id = ? AND status = 'assigned' ORDER BY id`, s.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"subscription_id": s.String("id"), "seats": s.Int("seats"), "holders": rows}, nil
}

// AssignSeatArgs name a subscription and a user.
type AssignSeatArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
	// The user's full name.
	UserName string `json:"user_name"`
	// The user's email.
	UserEmail string `json:"user_email"`
}

// AssignSeat gives a free seat of a subscription to a user.
func AssignSeat(args AssignSeatArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	name, email := strings.TrimSpace(args.UserName), strings.ToLower(strings.TrimSpace(args.UserEmail))
	if name == "" || email == "" {
		return nil, fmt.Errorf("a seat needs the user's name and email")
	}
	_, held, err := heldSeat(s.String("id"), email)
	if err != nil {
		return nil, err
	}
	if held {
		return nil, fmt.Errorf("%s already holds a seat of %s", email, s.String("id"))
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM seat_assignments WHERE subscription_id = ? AND status = 'assigned'`, s.String("id"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") >= s.Int("seats") {
		return nil, fmt.Errorf("subscription %s has no free seat (%d of %d assigned)", s.String("id"), n.Int("n"), s.Int("seats"))
	}
	res, err := sdk.Exec(`INSERT INTO seat_assignments (subscription_id, user_name, user_email, status) VALUES (?, ?, ?, 'assigned')`, s.String("id"), name, email)
	if err != nil {
		return nil, err
	}
	return map[string]any{"assignment_id": res.LastInsertID, "subscription_id": s.String("id"), "user_name": name, "user_email": email, "status": "assigned"}, nil
}

// FreeSeatArgs name a subscription and the user whose seat is freed.
type FreeSeatArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
	// The email of the user whose seat is freed.
	UserEmail string `json:"user_email"`
}

// FreeSeat frees the seat a user holds.
func FreeSeat(args FreeSeatArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(args.UserEmail))
	seat, held, err := heldSeat(s.String("id"), email)
	if err != nil {
		return nil, err
	}
	if !held {
		return nil, fmt.Errorf("%s holds no seat of %s", email, s.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE seat_assignments SET status = 'freed' WHERE id = ?`, seat.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"assignment_id": seat.Int("id"), "subscription_id": s.String("id"), "user_email": email, "status": "freed"}, nil
}

// AddSeatsArgs name a subscription and how many seats to add.
type AddSeatsArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
	// How many seats to add.
	Seats int `json:"seats"`
}

// AddSeats adds seats, charged pro rata to the renewal date.
func AddSeats(args AddSeatsArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	if args.Seats <= 0 {
		return nil, fmt.Errorf("seats to add must be positive, got %d", args.Seats)
	}
	renews, err := time.Parse("2006-01-02", s.String("renews_on"))
	if err != nil {
		return nil, fmt.Errorf("subscription %s has a bad renewal date %q", s.String("id"), s.String("renews_on"))
	}
	now := sdk.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	days := int(renews.Sub(today).Hours() / 24)
	if days < 0 {
		days = 0
	}
	charge := cents(float64(args.Seats) * s.Float("price_per_seat_year") * float64(days) / 365)
	seats := s.Int("seats") + int64(args.Seats)
	if _, err := sdk.Exec(`UPDATE subscriptions SET seats = ? WHERE id = ?`, seats, s.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO seat_charges (subscription_id, seats_added, amount, charged_at) VALUES (?, ?, ?, ?)`,
		s.String("id"), args.Seats, charge, now.Format(time.RFC3339)); err != nil {
		return nil, err
	}
	return map[string]any{"subscription_id": s.String("id"), "seats": seats, "seats_added": args.Seats, "days_to_renewal": days, "charge": charge}, nil
}

// heldSeat returns the user's current assignment on a subscription and
// whether there is one.
func heldSeat(subscription, email string) (sdk.Row, bool, error) {
	r, err := sdk.QueryRow(`SELECT id FROM seat_assignments WHERE subscription_id = ? AND lower(user_email) = ? AND status = 'assigned'`, subscription, email)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, false, nil
	}
	return r, err == nil, err
}
