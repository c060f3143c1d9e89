package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// zoneRank orders the zone sets: each covers the ones before it.
func zoneRank(zones string) int {
	switch zones {
	case "1":
		return 1
	case "1-2":
		return 2
	case "1-3":
		return 3
	}
	return 0
}

// fare returns the price of a pass: the concession price or the adult one.
func fare(passType, zones string, concession bool) (float64, error) {
	row, err := sdk.QueryRow("SELECT adult_price, concession_price FROM fares WHERE pass_type = ? AND zones = ?", passType, zones)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("no %s fare for zones %q (pass_type weekly or monthly, zones '1', '1-2' or '1-3')", passType, zones)
	}
	if err != nil {
		return 0, err
	}
	if concession {
		return row.Float("concession_price"), nil
	}
	return row.Float("adult_price"), nil
}

// passEnd is the last day of a pass starting on start.
func passEnd(passType string, start time.Time) time.Time {
	if passType == "weekly" {
		return start.AddDate(0, 0, 6)
	}
	return start.AddDate(0, 1, -1)
}

// riderPass returns one of the rider's passes with its card.
func riderPass(riderID, passID string) (pass sdk.Row, err error) {
	if err := riderExists(riderID); err != nil {
		return pass, err
	}
	pass, err = sdk.QueryRow("SELECT p.id, p.card_id, p.pass_type, p.zones, p.start_date, p.end_date, p.price_paid, p.concession, p.trips_used, p.status, c.rider_id, c.balance FROM passes p JOIN cards c ON c.id = p.card_id WHERE p.id = ?", passID)
	if errors.Is(err, sdk.ErrNoRows) {
		return pass, fmt.Errorf("no pass with id %q", passID)
	}
	if err != nil {
		return pass, err
	}
	if pass.String("rider_id") != riderID {
		return pass, fmt.Errorf("pass %s is not this rider's", passID)
	}
	return pass, nil
}

// BuyPassArgs are buy_pass' arguments.
type BuyPassArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the card to put the pass on
	CardID string `json:"card_id"`
	// weekly or monthly
	PassType string `json:"pass_type"`
	// '1', '1-2' or '1-3'
	Zones string `json:"zones"`
	// first day, YYYY-MM-DD
	StartDate string `json:"start_date"`
	// charge the concession price
	Concession bool `json:"concession,omitempty"`
}

// BuyPass buys a pass on a card, paid from its balance.
func BuyPass(args BuyPassArgs) (map[string]any, error) {
	card, err := riderCard(args.RiderID, args.CardID)
	if err != nil {
		return nil, err
	}
	if card.String("status") != "active" {
		return nil, fmt.Errorf("card %s is blocked", args.CardID)
	}
	start, err := time.Parse("2006-01-02", args.StartDate)
	if err != nil {
		return nil, fmt.Errorf("start_date %q is not YYYY-MM-DD", args.StartDate)
	}
	if args.StartDate < today() {
		return nil, fmt.Errorf("a pass cannot start before today (%s)", today())
	}
	if args.Concession {
		row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM concessions WHERE rider_id = ? AND verified = 1 AND expires_on >= ?", args.RiderID, today())
		if err != nil {
			return nil, err
		}
		if row.Int("n") == 0 {
			return nil, errors.New("the rider has no verified concession valid today: the adult price applies")
		}
	}
	price, err := fare(args.PassType, args.Zones, args.Concession)
	if err != nil {
		return nil, err
	}
	end := passEnd(args.PassType, start).Format("2006-01-02")
	clash, err := sdk.QueryRow("SELECT id, start_date, end_date FROM passes WHERE card_id = ? AND status = 'active' AND start_date <= ? AND end_date >= ? ORDER BY start_date LIMIT 1", args.CardID, end, args.StartDate)
	if err == nil {
		return nil, fmt.Errorf("pass %s on this card already covers %s to %s, which overlaps %s to %s", clash.String("id"), clash.String("start_date"), clash.String("end_date"), args.StartDate, end)
	}
	if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	balance := card.Float("balance")
	if balance+0.001 < price {
		return nil, fmt.Errorf("the card's balance %.2f is less than the price %.2f (%.2f short)", balance, price, money(price-balance))
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM passes")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("p-%d", 2001+n.Int("n"))
	con := 0
	if args.Concession {
		con = 1
	}
	if _, err := sdk.Exec("INSERT INTO passes (id, card_id, pass_type, zones, start_date, end_date, price_paid, concession, trips_used, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 'active')",
		id, args.CardID, args.PassType, args.Zones, args.StartDate, end, price, con); err != nil {
		return nil, err
	}
	balance = money(balance - price)
	if err := setBalance(args.CardID, balance); err != nil {
		return nil, err
	}
	if err := addTransaction(args.CardID, "pass_purchase", -price, id); err != nil {
		return nil, err
	}
	return map[string]any{"pass_id": id, "pass_type": args.PassType, "zones": args.Zones, "start_date": args.StartDate, "end_date": end, "price": price, "concession": args.Concession, "balance": balance}, nil
}

// UpgradePassArgs are upgrade_pass' arguments.
type UpgradePassArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the pass's id
	PassID string `json:"pass_id"`
	// the new zones, '1-2' or '1-3'
	Zones string `json:"zones"`
}

// UpgradePass extends a pass to more zones for the fare difference.
func UpgradePass(args UpgradePassArgs) (map[string]any, error) {
	pass, err := riderPass(args.RiderID, args.PassID)
	if err != nil {
		return nil, err
	}
	if pass.String("status") != "active" || pass.String("end_date") < today() {
		return nil, fmt.Errorf("pass %s is not active", args.PassID)
	}
	if zoneRank(args.Zones) <= zoneRank(pass.String("zones")) {
		return nil, fmt.Errorf("zones %q are not more than the pass's zones %q", args.Zones, pass.String("zones"))
	}
	concession := pass.Int("concession") == 1
	oldPrice, err := fare(pass.String("pass_type"), pass.String("zones"), concession)
	if err != nil {
		return nil, err
	}
	newPrice, err := fare(pass.String("pass_type"), args.Zones, concession)
	if err != nil {
		return nil, err
	}
	diff := money(newPrice - oldPrice)
	balance := pass.Float("balance")
	if balance+0.001 < diff {
		return nil, fmt.Errorf("the card's balance %.2f is less than the difference %.2f", balance, diff)
	}
	if _, err := sdk.Exec("UPDATE passes SET zones = ?, price_paid = ? WHERE id = ?", args.Zones, money(pass.Float("price_paid")+diff), args.PassID); err != nil {
		return nil, err
	}
	balance = money(balance - diff)
	if err := setBalance(pass.String("card_id"), balance); err != nil {
		return nil, err
	}
	if err := addTransaction(pass.String("card_id"), "pass_upgrade", -diff, args.PassID); err != nil {
		return nil, err
	}
	return map[string]any{"pass_id": args.PassID, "zones": args.Zones, "charged": diff, "balance": balance}, nil
}

// RefundPassArgs are refund_pass' arguments.
type RefundPassArgs struct {
	// the rider's id
	RiderID string `json:"rider_id"`
	// the pass's id
	PassID string `json:"pass_id"`
}

// RefundPass refunds a monthly pass within its first 7 days, less a fee.
func RefundPass(args RefundPassArgs) (map[string]any, error) {
	pass, err := riderPass(args.RiderID, args.PassID)
	if err != nil {
		return nil, err
	}
	if pass.String("status") != "active" {
		return nil, fmt.Errorf("pass %s is already %s", args.PassID, pass.String("status"))
	}
	if pass.String("pass_type") != "monthly" {
		return nil, errors.New("weekly passes are not refundable")
	}
	start, err := time.Parse("2006-01-02", pass.String("start_date"))
	if err != nil {
		return nil, err
	}
	now, _ := time.Parse("2006-01-02", today())
	if days := int(now.Sub(start).Hours() / 24); days > 7 {
		return nil, fmt.Errorf("pass %s started on %s, %d days ago: monthly passes are refundable only within 7 days of their start", args.PassID, pass.String("start_date"), days)
	}
	if pass.Int("trips_used") > 10 {
		return nil, fmt.Errorf("pass %s has been used for %d trips: only passes used for 10 trips or fewer are refundable", args.PassID, pass.Int("trips_used"))
	}
	refund := money(pass.Float("price_paid") - 5.00)
	if _, err := sdk.Exec("UPDATE passes SET status = 'refunded' WHERE id = ?", args.PassID); err != nil {
		return nil, err
	}
	balance := money(pass.Float("balance") + refund)
	if err := setBalance(pass.String("card_id"), balance); err != nil {
		return nil, err
	}
	if err := addTransaction(pass.String("card_id"), "pass_refund", refund, args.PassID); err != nil {
		return nil, err
	}
	return map[string]any{"pass_id": args.PassID, "refunded": refund, "fee": 5.00, "card_id": pass.String("card_id"), "balance": balance}, nil
}
