package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindAccountArgs struct {
	// Account email
	Email string `json:"email"`
}

// FindAccount finds an account by email, with the skiers on it.
func FindAccount(args FindAccountArgs) (map[string]any, error) {
	a, err := sdk.QueryRow(`SELECT id, name, email FROM accounts WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no account has the email %s", args.Email)
	}
	if err != nil {
		return nil, err
	}
	t := today()
	skiers, err := sdk.Query(`SELECT id AS skier_id, name, birth_date,
		(CAST(strftime('%Y', ?) AS INTEGER) - CAST(strftime('%Y', birth_date) AS INTEGER)) - (strftime('%m-%d', ?) < strftime('%m-%d', birth_date)) AS age,
		level, relation FROM skiers WHERE account_id = ? ORDER BY id`, t, t, a.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": a.String("id"), "name": a.String("name"), "email": a.String("email"), "skiers": skiers}, nil
}

type CheckResortDaysArgs struct {
	// YYYY-MM-DD
	StartDate string `json:"start_date"`
	// YYYY-MM-DD
	EndDate string `json:"end_date"`
}

// CheckResortDays says for each date in a range whether the resort is open.
func CheckResortDays(args CheckResortDaysArgs) (sdk.Rows, error) {
	var none sdk.Rows
	start, err := parseDay(args.StartDate)
	if err != nil {
		return none, err
	}
	end, err := parseDay(args.EndDate)
	if err != nil {
		return none, err
	}
	if end.Before(start) {
		return none, errors.New("end_date is before start_date")
	}
	if end.Sub(start).Hours()/24 >= 14 {
		return none, errors.New("ask for at most 14 days at a time")
	}
	return sdk.Query(`WITH RECURSIVE d(day) AS (SELECT ? UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < ?)
		SELECT d.day, CASE WHEN r.is_open = 1 THEN 'open' ELSE 'closed' END AS status,
		CASE WHEN r.day IS NULL THEN 'no operation scheduled' ELSE r.note END AS note
		FROM d LEFT JOIN resort_days r ON r.day = d.day ORDER BY d.day`, start.Format("2006-01-02"), end.Format("2006-01-02"))
}

type AccountArgs struct {
	// Account id
	AccountID string `json:"account_id"`
}

// ListPasses lists the passes of every skier on an account.
func ListPasses(args AccountArgs) (sdk.Rows, error) {
	if err := requireAccount(args.AccountID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT p.id AS pass_id, s.name AS skier, p.pass_type, p.category, p.start_date, p.days, p.price, p.status
		FROM passes p JOIN skiers s ON s.id = p.skier_id WHERE s.account_id = ? ORDER BY p.start_date, p.id`, args.AccountID)
}

type BuyPassArgs struct {
	// Account id
	AccountID string `json:"account_id"`
	// Skier id
	SkierID string `json:"skier_id"`
	// day, 3-day or 5-day
	PassType string `json:"pass_type"`
	// First day, YYYY-MM-DD
	StartDate string `json:"start_date"`
}

// BuyPass buys a pass for a skier on the account, priced by the skier's age on the first day.
func BuyPass(args BuyPassArgs) (sdk.Row, error) {
	s, err := skierOnAccount(args.AccountID, args.SkierID)
	if err != nil {
		return noRow(), err
	}
	n, err := passDays(args.PassType)
	if err != nil {
		return noRow(), err
	}
	start, err := parseDay(args.StartDate)
	if err != nil {
		return noRow(), err
	}
	day := start.Format("2006-01-02")
	if day < today() {
		return noRow(), fmt.Errorf("the start date %s is in the past", day)
	}
	if err := allOpen(day, n); err != nil {
		return noRow(), err
	}
	birth, err := parseDay(s.String("birth_date"))
	if err != nil {
		return noRow(), err
	}
	cat := category(ageOn(birth, start))
	price, err := sdk.QueryRow(`SELECT price FROM pass_prices WHERE pass_type = ? AND category = ?`, args.PassType, cat)
	if err != nil {
		return noRow(), fmt.Errorf("no price for a %s %s pass", cat, args.PassType)
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 100) + 1 AS n FROM passes WHERE id LIKE 'P-%'`)
	if err != nil {
		return noRow(), err
	}
	id := fmt.Sprintf("P-%d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO passes (id, skier_id, pass_type, category, start_date, days, price, status, purchased_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
		id, s.String("id"), args.PassType, cat, day, n, price.Float("price"), nowStamp()); err != nil {
		return noRow(), err
	}
	return passView(id)
}

type UpgradePassArgs struct {
	// Account id
	AccountID string `json:"account_id"`
	// Pass id
	PassID string `json:"pass_id"`
	// 3-day or 5-day
	PassType string `json:"pass_type"`
}

// UpgradePass turns a day pass not yet started into a 3-day or 5-day pass, charging the difference.
func UpgradePass(args UpgradePassArgs) (map[string]any, error) {
	p, err := passOnAccount(args.AccountID, args.PassID)
	if err != nil {
		return nil, err
	}
	if p.String("status") != "active" {
		return nil, fmt.Errorf("pass %s is %s", args.PassID, p.String("status"))
	}
	if p.String("pass_type") != "day" {
		return nil, fmt.Errorf("pass %s is a %s pass: only day passes can be upgraded", args.PassID, p.String("pass_type"))
	}
	if p.String("start_date") <= today() {
		return nil, fmt.Errorf("pass %s starts on %s: it can only be upgraded before it starts", args.PassID, p.String("start_date"))
	}
	if args.PassType != "3-day" && args.PassType != "5-day" {
		return nil, fmt.Errorf("upgrade to 3-day or 5-day, not %q", args.PassType)
	}
	n, _ := passDays(args.PassType)
	if err := allOpen(p.String("start_date"), n); err != nil {
		return nil, err
	}
	price, err := sdk.QueryRow(`SELECT price FROM pass_prices WHERE pass_type = ? AND category = ?`, args.PassType, p.String("category"))
	if err != nil {
		return nil, fmt.Errorf("no price for a %s %s pass", p.String("category"), args.PassType)
	}
	charge := price.Float("price") - p.Float("price")
	if _, err := sdk.Exec(`UPDATE passes SET pass_type = ?, days = ?, price = ? WHERE id = ?`, args.PassType, n, price.Float("price"), p.String("id")); err != nil {
		return nil, err
	}
	view, err := passView(p.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"pass": view, "amount_charged": charge}, nil
}

type CancelPassArgs struct {
	// Account id
	AccountID string `json:"account_id"`
	// Pass id
	PassID string `json:"pass_id"`
}

// CancelPass cancels an active pass that has not started.
func CancelPass(args CancelPassArgs) (sdk.Row, error) {
	p, err := passOnAccount(args.AccountID, args.PassID)
	if err != nil {
		return noRow(), err
	}
	if p.String("status") != "active" {
		return noRow(), fmt.Errorf("pass %s is already %s", args.PassID, p.String("status"))
	}
	if p.String("start_date") <= today() {
		return noRow(), fmt.Errorf("pass %s started on %s: it can no longer be cancelled", args.PassID, p.String("start_date"))
	}
	if _, err := sdk.Exec(`UPDATE passes SET status = 'cancelled' WHERE id = ?`, p.String("id")); err != nil {
		return noRow(), err
	}
	return passView(p.String("id"))
}
