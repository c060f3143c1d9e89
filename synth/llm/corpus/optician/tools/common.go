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

const testPrice = 25.00
const voucherCap = 60.00

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

func patientRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, date_of_birth, diabetes, referral, guardian_id FROM patients WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no patient %q", id)
	}
	return row, err
}

// age is the patient's age in whole years on the application's date.
func age(p sdk.Row) int {
	dob, err := time.Parse("2006-01-02", p.String("date_of_birth"))
	if err != nil {
		return 0
	}
	now := sdk.Now().UTC()
	a := now.Year() - dob.Year()
	if now.YearDay() < dob.YearDay() {
		a--
	}
	return a
}

// freeTests says whether the patient's tests are free (and vouchers apply).
func freeTests(p sdk.Row) bool {
	a := age(p)
	return a < 16 || a > 60 || p.Int("diabetes") == 1
}

// lastTest is the start of the patient's last completed test, or "".
func lastTest(patientID string) (string, error) {
	row, err := sdk.QueryRow(`SELECT COALESCE(MAX(s.starts_at), '') AS last FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.patient_id = ? AND a.status = 'completed'`, patientID)
	if err != nil {
		return "", err
	}
	return row.String("last"), nil
}

// dueDate is the first day a routine test is allowed (24 months after the
// last completed test), or "" when there was none.
func dueDate(last string) string {
	if len(last) < 10 {
		return ""
	}
	t, err := time.Parse("2006-01-02", last[:10])
	if err != nil {
		return ""
	}
	return t.AddDate(2, 0, 0).Format("2006-01-02")
}

func slotTaken(slotID string, except int64) (bool, error) {
	row, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM appointments WHERE slot_id = ? AND status IN ('booked','completed') AND id <> ?", slotID, except)
	if err != nil {
		return false, err
	}
	return row.Int("n") > 0, nil
}

func slotRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT s.id, s.starts_at, b.name AS branch FROM slots s JOIN branches b ON b.id = s.branch_id WHERE UPPER(s.id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no slot %q", id)
	}
	return row, err
}

func checkFreeSlot(s sdk.Row, except int64) error {
	start, err := time.Parse(time.RFC3339, s.String("starts_at"))
	if err != nil {
		return fmt.Errorf("slot %s has a bad time", s.String("id"))
	}
	if !start.After(sdk.Now()) {
		return fmt.Errorf("slot %s has already started", s.String("id"))
	}
	taken, err := slotTaken(s.String("id"), except)
	if err != nil {
		return err
	}
	if taken {
		return fmt.Errorf("slot %s is taken", s.String("id"))
	}
	return nil
}

func frameRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, model, range_name, colour, price, stock FROM frames WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no frame %q", id)
	}
	return row, err
}

// addonsTotal checks the add-on ids and returns their total.
func addonsTotal(ids []string) (float64, []string, error) {
	total := 0.0
	var clean []string
	seen := map[string]bool{}
	for _, id := range ids {
		row, err := sdk.QueryRow("SELECT id, price FROM addons WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
		if errors.Is(err, sdk.ErrNoRows) {
			return 0, nil, fmt.Errorf("no add-on %q", id)
		}
		if err != nil {
			return 0, nil, err
		}
		if seen[row.String("id")] {
			continue
		}
		seen[row.String("id")] = true
		clean = append(clean, row.String("id"))
		total += row.Float("price")
	}
	return money(total), clean, nil
}

func ownOrder(patientID string, id int64) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, patient_id, prescription_id, frame_id, status, voucher, total FROM orders WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no order %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if !strings.EqualFold(row.String("patient_id"), strings.TrimSpace(patientID)) {
		return sdk.Row{}, fmt.Errorf("order %d is not patient %s's order", id, patientID)
	}
	return row, nil
}

func ownAppointment(patientID string, id int64) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, patient_id, slot_id, status FROM appointments WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no appointment %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if !strings.EqualFold(row.String("patient_id"), strings.TrimSpace(patientID)) {
		return sdk.Row{}, fmt.Errorf("appointment %d is not patient %s's", id, patientID)
	}
	return row, nil
}
