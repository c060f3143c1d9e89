package tools

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// maxBalance is the most stored value a card may hold.
const maxBalance = 150.00

// today is the clock's date, YYYY-MM-DD.
func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// money rounds an amount to cents.
func money(v float64) float64 { return math.Round(v*100) / 100 }

// riderExists fails for an unknown rider.
func riderExists(riderID string) error {
	if _, err := sdk.QueryRow("SELECT id FROM riders WHERE id = ?", riderID); err != nil {
		if errors.Is(err, sdk.ErrNoRows) {
			return fmt.Errorf("no rider with id %q", riderID)
		}
		return err
	}
	return nil
}

// riderCard returns one of the rider's cards.
func riderCard(riderID, cardID string) (row sdk.Row, err error) {
	if err := riderExists(riderID); err != nil {
		return row, err
	}
	row, err = sdk.QueryRow("SELECT id, rider_id, number, balance, status FROM cards WHERE id = ?", cardID)
	if errors.Is(err, sdk.ErrNoRows) {
		return row, fmt.Errorf("no card with id %q", cardID)
	}
	if err != nil {
		return row, err
	}
	if row.String("rider_id") != riderID {
		return row, fmt.Errorf("card %s is not this rider's", cardID)
	}
	return row, nil
}

// addTransaction records a change of a card's balance.
func addTransaction(cardID, kind string, amount float64, passID string) error {
	var pass any
	if passID != "" {
		pass = passID
	}
	_, err := sdk.Exec("INSERT INTO card_transactions (card_id, kind, amount, created_at, pass_id) VALUES (?, ?, ?, ?, ?)",
		cardID, kind, money(amount), sdk.Now().UTC().Format(time.RFC3339), pass)
	return err
}

// setBalance writes a card's new balance.
func setBalance(cardID string, balance float64) error {
	_, err := sdk.Exec("UPDATE cards SET balance = ? WHERE id = ?", money(balance), cardID)
	return err
}

// FindRiderArgs are find_rider's arguments.
type FindRiderArgs struct {
	// the rider's email
	Email string `json:"email"`
}

// FindRider looks up a rider by email with their concessions.
func FindRider(args FindRiderArgs) (map[string]any, error) {
	row, err := sdk.QueryRow("SELECT id, name, email FROM riders WHERE lower(email) = lower(?)", args.Email)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no rider with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	cons, err := sdk.Query("SELECT kind, verified, expires_on, (verified = 1 AND expires_on >= ?) AS valid_today FROM concessions WHERE rider_id = ? ORDER BY kind", today(), row.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": row.String("id"), "name": row.String("name"), "email": row.String("email"), "concessions": cons}, nil
}

// ListCardsArgs are list_cards' arguments.
type ListCardsArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
}

// ListCards lists a rider's cards and the passes on them.
func ListCards(args ListCardsArgs) (map[string]any, error) {
	if err := riderExists(args.RiderID); err != nil {
		return nil, err
	}
	cards, err := sdk.Query("SELECT id, number, balance, status, blocked_reason FROM cards WHERE rider_id = ? ORDER BY id", args.RiderID)
	if err != nil {
		return nil, err
	}
	passes, err := sdk.Query("SELECT p.id, p.card_id, p.pass_type, p.zones, p.start_date, p.end_date, p.price_paid, p.concession, p.trips_used, p.status FROM passes p JOIN cards c ON c.id = p.card_id WHERE c.rider_id = ? ORDER BY p.card_id, p.start_date", args.RiderID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"cards": cards, "passes": passes}, nil
}

// GetFares returns the fare table.
func GetFares() (sdk.Rows, error) {
	return sdk.Query("SELECT pass_type, zones, adult_price, concession_price FROM fares ORDER BY pass_type, zones")
}

// ListTripsArgs are list_trips' arguments.
type ListTripsArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the card's id
	CardID string `json:"card_id"`
	// first day, YYYY-MM-DD
	FromDate string `json:"from_date,omitempty"`
	// last day, YYYY-MM-DD
	ToDate string `json:"to_date,omitempty"`
}

// ListTrips lists the trips made with one of the rider's cards.
func ListTrips(args ListTripsArgs) (out sdk.Rows, err error) {
	if _, err := riderCard(args.RiderID, args.CardID); err != nil {
		return out, err
	}
	q := "SELECT id, zone, tapped_at, fare_charged, pass_id FROM trips WHERE card_id = ?"
	params := []any{args.CardID}
	if args.FromDate != "" {
		q += " AND substr(tapped_at, 1, 10) >= ?"
		params = append(params, args.FromDate)
	}
	if args.ToDate != "" {
		q += " AND substr(tapped_at, 1, 10) <= ?"
		params = append(params, args.ToDate)
	}
	return sdk.Query(q+" ORDER BY tapped_at", params...)
}

// TopUpArgs are top_up's arguments.
type TopUpArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the card's id
	CardID string `json:"card_id"`
	// amount to add
	Amount float64 `json:"amount"`
}

// TopUp adds stored value to a card, up to the card's limit.
func TopUp(args TopUpArgs) (map[string]any, error) {
	card, err := riderCard(args.RiderID, args.CardID)
	if err != nil {
		return nil, err
	}
	if card.String("status") != "active" {
		return nil, fmt.Errorf("card %s is blocked", args.CardID)
	}
	if args.Amount <= 0 {
		return nil, errors.New("the amount must be positive")
	}
	balance := money(card.Float("balance") + args.Amount)
	if balance > maxBalance+0.001 {
		return nil, fmt.Errorf("the balance would be %.2f; a card holds at most %.2f, so at most %.2f can be added", balance, maxBalance, money(maxBalance-card.Float("balance")))
	}
	if err := setBalance(args.CardID, balance); err != nil {
		return nil, err
	}
	if err := addTransaction(args.CardID, "topup", args.Amount, ""); err != nil {
		return nil, err
	}
	return map[string]any{"card_id": args.CardID, "added": money(args.Amount), "balance": balance}, nil
}
