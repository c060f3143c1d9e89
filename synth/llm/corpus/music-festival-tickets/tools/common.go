package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// Festival dates and rules.
const (
	festivalStart  = "2024-06-13"
	nameChangeFee  = 15.00
	maxNameChanges = 2
	maxPerDay      = 4
)

// isWeekendDay reports whether a weekend pass covers day.
func isWeekendDay(d string) bool {
	return d == "2024-06-14" || d == "2024-06-15" || d == "2024-06-16"
}

// stamp is the clock as stored.
func stamp() string { return sdk.Now().UTC().Format(time.RFC3339) }

// fanExists fails for an unknown fan.
func fanExists(fanID string) error {
	if _, err := sdk.QueryRow("SELECT id FROM fans WHERE id = ?", fanID); err != nil {
		if errors.Is(err, sdk.ErrNoRows) {
			return fmt.Errorf("no fan with id %q", fanID)
		}
		return err
	}
	return nil
}

// fanTicket returns one of the fan's tickets with its product and day.
func fanTicket(fanID, ticketID string) (t sdk.Row, err error) {
	t, err = sdk.QueryRow("SELECT t.id, t.order_id, o.fan_id, t.product_id, p.kind, COALESCE(p.day, '') AS day, COALESCE(d.status, 'on') AS day_status, t.holder_name, t.name_changes, t.price_paid, t.booking_fee, t.status FROM tickets t JOIN orders o ON o.id = t.order_id JOIN products p ON p.id = t.product_id LEFT JOIN festival_days d ON d.day = p.day WHERE t.id = ?", ticketID)
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && t.String("fan_id") != fanID) {
		return t, fmt.Errorf("no ticket %q of this fan", ticketID)
	}
	return t, err
}

// ticketsForDay counts the fan's valid tickets that cover a day.
func ticketsForDay(fanID, d string) (int64, error) {
	weekend := 0
	if isWeekendDay(d) {
		weekend = 1
	}
	row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM tickets t JOIN orders o ON o.id = t.order_id JOIN products p ON p.id = t.product_id WHERE o.fan_id = ? AND t.status IN ('valid', 'on_resale') AND (p.day = ? OR (p.kind = 'weekend_pass' AND ? = 1))", fanID, d, weekend)
	if err != nil {
		return 0, err
	}
	return row.Int("n"), nil
}

// charge records money taken from (positive) or returned to (negative) a fan.
func charge(fanID, ticketID, kind string, amount float64) error {
	var t any
	if ticketID != "" {
		t = ticketID
	}
	_, err := sdk.Exec("INSERT INTO charges (fan_id, ticket_id, kind, amount, created_at) VALUES (?, ?, ?, ?, ?)", fanID, t, kind, amount, stamp())
	return err
}
