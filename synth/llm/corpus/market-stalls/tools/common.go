package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// list runs a query whose one column j is a JSON object per row and
// decodes the rows, in order, into out (a pointer to a slice).
func list(out any, query string, args ...any) error {
	row, err := sdk.QueryRow("SELECT COALESCE(json_group_array(json(j)), '[]') AS j FROM ("+query+")", args...)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(row.String("j")), out)
}

func money(f float64) float64 { return math.Round(f*100) / 100 }

func today() time.Time {
	n := sdk.Now().UTC()
	return time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
}

func traderRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT t.id, t.name, t.email, t.category_id, c.name AS category, c.max_traders_per_market, t.hardship_waiver, t.strikes, t.status
		FROM traders t JOIN categories c ON c.id = t.category_id WHERE UPPER(t.id) = UPPER(?)`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no trader %q", id)
	}
	return row, err
}

func marketRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT m.id, m.site_id, m.market_date, s.name AS site, s.fee_standard, s.fee_power
		FROM markets m JOIN sites s ON s.id = m.site_id WHERE UPPER(m.id) = UPPER(?)`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no market %q", id)
	}
	return row, err
}

func marketDate(m sdk.Row) (time.Time, error) {
	d, err := time.Parse("2006-01-02", m.String("market_date"))
	if err != nil {
		return d, fmt.Errorf("market %s has a bad date", m.String("id"))
	}
	return d, nil
}

// checkStall says whether trader t may take stall n at market m, leaving
// out one booking (the one being moved); it returns the fee.
func checkStall(t, m sdk.Row, n int, except int64) (float64, error) {
	if t.String("status") == "suspended" {
		return 0, fmt.Errorf("trader %s is suspended and cannot book stalls", t.String("id"))
	}
	d, err := marketDate(m)
	if err != nil {
		return 0, err
	}
	if d.Before(today()) {
		return 0, fmt.Errorf("the %s market of %s is past", m.String("site"), m.String("market_date"))
	}
	st, err := sdk.QueryRow("SELECT has_power FROM stalls WHERE site_id = ? AND stall_number = ?", m.String("site_id"), n)
	if errors.Is(err, sdk.ErrNoRows) {
		return 0, fmt.Errorf("%s has no stall %d", m.String("site"), n)
	}
	if err != nil {
		return 0, err
	}
	taken, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM bookings WHERE market_id = ? AND stall_number = ? AND status = 'booked' AND id <> ?", m.String("id"), n, except)
	if err != nil {
		return 0, err
	}
	if taken.Int("n") > 0 {
		return 0, fmt.Errorf("stall %d at the %s market of %s is taken", n, m.String("site"), m.String("market_date"))
	}
	held, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM bookings WHERE market_id = ? AND trader_id = ? AND status = 'booked' AND id <> ?", m.String("id"), t.String("id"), except)
	if err != nil {
		return 0, err
	}
	if held.Int("n") >= 2 {
		return 0, fmt.Errorf("trader %s already holds 2 stalls at the %s market of %s (the most one trader may hold)", t.String("id"), m.String("site"), m.String("market_date"))
	}
	if held.Int("n") == 0 {
		others, err := sdk.QueryRow(`SELECT COUNT(DISTINCT b.trader_id) AS n FROM bookings b JOIN traders t ON t.id = b.trader_id
			WHERE b.market_id = ? AND b.status = 'booked' AND t.category_id = ? AND b.trader_id <> ? AND b.id <> ?`, m.String("id"), t.String("category_id"), t.String("id"), except)
		if err != nil {
			return 0, err
		}
		if others.Int("n") >= t.Int("max_traders_per_market") {
			return 0, fmt.Errorf("%d traders of the %s category already trade at the %s market of %s (the limit)", others.Int("n"), t.String("category"), m.String("site"), m.String("market_date"))
		}
	}
	fee := m.Float("fee_standard")
	if st.Int("has_power") == 1 {
		fee = m.Float("fee_power")
	}
	if t.Int("hardship_waiver") == 1 {
		fee = money(fee / 2)
	}
	return fee, nil
}

func ownBooking(traderID string, id int64) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT id, trader_id, market_id, stall_number, fee, status FROM bookings WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no booking %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if !strings.EqualFold(b.String("trader_id"), strings.TrimSpace(traderID)) {
		return sdk.Row{}, fmt.Errorf("booking %d is not trader %s's booking", id, traderID)
	}
	return b, nil
}
