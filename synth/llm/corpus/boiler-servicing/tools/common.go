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

const (
	calloutFee   = 60.00
	servicePrice = 80.00
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

func normPostcode(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

func customerRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, postcode, area, cover_plan, plan_start FROM customers WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer %q", id)
	}
	return row, err
}

func slotRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT s.id, s.engineer_id, s.slot_date, s.period, s.starts_at, e.name AS engineer, e.gas_safe
		FROM slots s JOIN engineers e ON e.id = s.engineer_id WHERE UPPER(s.id) = UPPER(?)`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no slot %q", id)
	}
	return row, err
}

// checkSlot says whether the slot can take gas or other work for the
// customer, leaving out one visit (the one being moved).
func checkSlot(c, s sdk.Row, gas bool, except int64) error {
	start, err := time.Parse(time.RFC3339, s.String("starts_at"))
	if err != nil {
		return fmt.Errorf("slot %s has a bad start time", s.String("id"))
	}
	if !start.After(sdk.Now()) {
		return fmt.Errorf("slot %s has already started", s.String("id"))
	}
	taken, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM visits WHERE slot_id = ? AND status IN ('booked','completed') AND id <> ?", s.String("id"), except)
	if err != nil {
		return err
	}
	if taken.Int("n") > 0 {
		return fmt.Errorf("slot %s is taken", s.String("id"))
	}
	covers, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM engineer_areas WHERE engineer_id = ? AND area = ?", s.String("engineer_id"), c.String("area"))
	if err != nil {
		return err
	}
	if covers.Int("n") == 0 {
		return fmt.Errorf("%s does not cover postcode area %s", s.String("engineer"), c.String("area"))
	}
	if gas && s.Int("gas_safe") == 0 {
		return fmt.Errorf("%s is not gas-safe and cannot do gas work", s.String("engineer"))
	}
	return nil
}

func ownVisit(customerID string, id int64) (sdk.Row, error) {
	v, err := sdk.QueryRow(`SELECT v.*, s.starts_at, s.slot_date, s.period, e.name AS engineer FROM visits v JOIN slots s ON s.id = v.slot_id
		JOIN engineers e ON e.id = s.engineer_id WHERE v.id = ?`, id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no visit %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if !strings.EqualFold(v.String("customer_id"), strings.TrimSpace(customerID)) {
		return sdk.Row{}, fmt.Errorf("visit %d is not customer %s's visit", id, customerID)
	}
	return v, nil
}
