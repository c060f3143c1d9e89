package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

func nowStamp() string { return sdk.Now().UTC().Format("2006-01-02T15:04:05Z") }

func parseDay(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return t, fmt.Errorf("invalid date %q: use YYYY-MM-DD", s)
	}
	return t, nil
}

// ageOn is a person's age in whole years on a day.
func ageOn(birth, day time.Time) int {
	age := day.Year() - birth.Year()
	if day.Month() < birth.Month() || (day.Month() == birth.Month() && day.Day() < birth.Day()) {
		age--
	}
	return age
}

// category is the price category for a skier's age on a pass's first day.
func category(age int) string {
	switch {
	case age < 16:
		return "child"
	case age >= 65:
		return "senior"
	}
	return "adult"
}

func passDays(passType string) (int, error) {
	switch passType {
	case "day":
		return 1, nil
	case "3-day":
		return 3, nil
	case "5-day":
		return 5, nil
	}
	return 0, fmt.Errorf("unknown pass type %q: use day, 3-day or 5-day", passType)
}

func requireAccount(accountID string) error {
	_, err := sdk.QueryRow(`SELECT id FROM accounts WHERE id = ?`, accountID)
	if errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("account %s not found", accountID)
	}
	return err
}

// skierOnAccount loads a skier who must be on the account.
func skierOnAccount(accountID, skierID string) (sdk.Row, error) {
	if err := requireAccount(accountID); err != nil {
		return noRow(), err
	}
	s, err := sdk.QueryRow(`SELECT * FROM skiers WHERE id = ? AND account_id = ?`, strings.TrimSpace(skierID), accountID)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("skier %s is not on account %s", skierID, accountID)
	}
	return s, err
}

// allOpen fails unless the resort is open on each of n days from start.
func allOpen(start string, n int) error {
	row, err := sdk.QueryRow(`SELECT COUNT(*) AS open_days FROM resort_days WHERE is_open = 1 AND day >= ? AND day <= date(?, ?)`, start, start, fmt.Sprintf("+%d days", n-1))
	if err != nil {
		return err
	}
	if int(row.Int("open_days")) != n {
		if n == 1 {
			return fmt.Errorf("the resort is closed on %s", start)
		}
		return fmt.Errorf("the resort is not open on every day from %s for %d days", start, n)
	}
	return nil
}

// passOnAccount loads a pass held by a skier on the account.
func passOnAccount(accountID, passID string) (sdk.Row, error) {
	if err := requireAccount(accountID); err != nil {
		return noRow(), err
	}
	p, err := sdk.QueryRow(`SELECT p.*, s.name AS skier, s.birth_date FROM passes p JOIN skiers s ON s.id = p.skier_id WHERE p.id = ? AND s.account_id = ?`, strings.TrimSpace(passID), accountID)
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("pass %s not found on account %s", passID, accountID)
	}
	return p, err
}

func passView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT p.id AS pass_id, s.name AS skier, p.pass_type, p.category, p.start_date, p.days, p.price, p.status FROM passes p JOIN skiers s ON s.id = p.skier_id WHERE p.id = ?`, id)
}

// noRow is the empty row returned with an error.
func noRow() sdk.Row {
	var r sdk.Row
	return r
}
