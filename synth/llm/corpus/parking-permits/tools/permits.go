package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const day = "2006-01-02"

func today() time.Time {
	t, _ := time.Parse(day, sdk.Now().UTC().Format(day))
	return t
}

// VerifyHouseholdArgs are the arguments of verify_household.
type VerifyHouseholdArgs struct {
	// Permit account number such as PA-301.
	AccountID string `json:"account_id"`
	// The household's postcode.
	Postcode string `json:"postcode"`
}

// VerifyHousehold verifies a household by account number and postcode.
func VerifyHousehold(args VerifyHouseholdArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS account_id, holder_name, address, zone FROM households WHERE id = ? AND postcode = ?`,
		strings.ToUpper(strings.TrimSpace(args.AccountID)), strings.TrimSpace(args.Postcode))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the account number and postcode do not match a household")
	}
	return row, err
}

func household(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, zone, visitor_allowance FROM households WHERE id = ?`, strings.ToUpper(strings.TrimSpace(id)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no household has the account number %q", id)
	}
	return row, err
}

// AccountArgs name a household.
type AccountArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
}

// ListPermits lists the household's permits.
func ListPermits(args AccountArgs) (sdk.Rows, error) {
	h, err := household(args.AccountID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS permit_id, plate, status, starts_on, expires_on FROM permits WHERE household_id = ? ORDER BY id`, h.String("id"))
}

// IssuePermitArgs are the arguments of issue_permit.
type IssuePermitArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
	// The vehicle's plate such as B-KL 1234.
	Plate string `json:"plate"`
}

// IssuePermit issues a one-year permit for a plate, at most two active per household.
func IssuePermit(args IssuePermitArgs) (map[string]any, error) {
	h, err := household(args.AccountID)
	if err != nil {
		return nil, err
	}
	plate := strings.ToUpper(strings.TrimSpace(args.Plate))
	if plate == "" {
		return nil, fmt.Errorf("give the vehicle's plate")
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM permits WHERE household_id = ? AND status = 'active'`, h.String("id"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") >= 2 {
		return nil, fmt.Errorf("the household already has two active permits")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM permits WHERE upper(plate) = ? AND status = 'active'`, plate); err == nil {
		return nil, fmt.Errorf("plate %s already has an active permit", plate)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT id FROM permits WHERE id LIKE 'PM-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "PM-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("PM-%d", max+1)
	start := today()
	end := start.AddDate(1, 0, -1)
	if _, err := sdk.Exec(`INSERT INTO permits (id, household_id, plate, status, starts_on, expires_on, price, refund) VALUES (?, ?, ?, 'active', ?, ?, 120, 0)`,
		id, h.String("id"), plate, start.Format(day), end.Format(day)); err != nil {
		return nil, err
	}
	return map[string]any{"permit_id": id, "plate": plate, "zone": h.String("zone"), "starts_on": start.Format(day), "expires_on": end.Format(day), "price": 120.0}, nil
}

// PermitArgs name a permit.
type PermitArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
	// Permit id such as PM-502.
	PermitID string `json:"permit_id"`
}

func activePermit(account, id string) (sdk.Row, error) {
	h, err := household(account)
	if err != nil {
		return sdk.Row{}, err
	}
	p, err := sdk.QueryRow(`SELECT id, plate, status, expires_on FROM permits WHERE id = ? AND household_id = ?`, strings.ToUpper(strings.TrimSpace(id)), h.String("id"))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("permit %q is not one of this household's permits", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if p.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("permit %s is %s", p.String("id"), p.String("status"))
	}
	return p, nil
}

// ReplaceVehicleArgs are the arguments of replace_vehicle.
type ReplaceVehicleArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
	// Permit id such as PM-502.
	PermitID string `json:"permit_id"`
	// The new plate.
	Plate string `json:"plate"`
}

// ReplaceVehicle replaces the plate on an active permit.
func ReplaceVehicle(args ReplaceVehicleArgs) (map[string]any, error) {
	p, err := activePermit(args.AccountID, args.PermitID)
	if err != nil {
		return nil, err
	}
	plate := strings.ToUpper(strings.TrimSpace(args.Plate))
	if plate == "" || plate == p.String("plate") {
		return nil, fmt.Errorf("give a new plate")
	}
	if _, err := sdk.Exec(`UPDATE permits SET plate = ? WHERE id = ?`, plate, p.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"permit_id": p.String("id"), "plate": plate}, nil
}

// RenewPermit adds a year to a permit in its last 60 days.
func RenewPermit(args PermitArgs) (map[string]any, error) {
	p, err := activePermit(args.AccountID, args.PermitID)
	if err != nil {
		return nil, err
	}
	exp, err := time.Parse(day, p.String("expires_on"))
	if err != nil {
		return nil, err
	}
	if exp.Sub(today()) > 60*24*time.Hour {
		return nil, fmt.Errorf("permit %s expires on %s; it can be renewed only in its last 60 days", p.String("id"), p.String("expires_on"))
	}
	ne := exp.AddDate(1, 0, 0).Format(day)
	if _, err := sdk.Exec(`UPDATE permits SET expires_on = ? WHERE id = ?`, ne, p.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"permit_id": p.String("id"), "expires_on": ne, "price": 120.0}, nil
}

// CancelPermit cancels an active permit with 10.00 per full month left.
func CancelPermit(args PermitArgs) (map[string]any, error) {
	p, err := activePermit(args.AccountID, args.PermitID)
	if err != nil {
		return nil, err
	}
	exp, err := time.Parse(day, p.String("expires_on"))
	if err != nil {
		return nil, err
	}
	t := today()
	months := (exp.Year()-t.Year())*12 + int(exp.Month()) - int(t.Month())
	if exp.Day() < t.Day() {
		months--
	}
	if months < 0 {
		months = 0
	}
	refund := float64(months) * 10
	if _, err := sdk.Exec(`UPDATE permits SET status = 'cancelled', refund = ? WHERE id = ?`, refund, p.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"permit_id": p.String("id"), "status": "cancelled", "refund": refund}, nil
}

// AllowanceArgs name a household and a year.
type AllowanceArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
	// Calendar year such as 2024.
	Year int `json:"year"`
}

func passesUsed(householdID string, year int) (int64, error) {
	r, err := sdk.QueryRow(`SELECT COALESCE(SUM(quantity), 0) AS used FROM visitor_passes WHERE household_id = ? AND substr(pass_date, 1, 4) = ?`, householdID, strconv.Itoa(year))
	if err != nil {
		return 0, err
	}
	return r.Int("used"), nil
}

// VisitorAllowance returns the year's visitor passes: allowance, used, left.
func VisitorAllowance(args AllowanceArgs) (map[string]any, error) {
	h, err := household(args.AccountID)
	if err != nil {
		return nil, err
	}
	used, err := passesUsed(h.String("id"), args.Year)
	if err != nil {
		return nil, err
	}
	return map[string]any{"year": args.Year, "allowance": h.Int("visitor_allowance"), "used": used, "left": h.Int("visitor_allowance") - used}, nil
}

// BuyPassesArgs are the arguments of buy_visitor_passes.
type BuyPassesArgs struct {
	// The verified account number.
	AccountID string `json:"account_id"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Number of passes.
	Quantity int `json:"quantity"`
}

// BuyVisitorPasses buys visitor day passes within the year's allowance.
func BuyVisitorPasses(args BuyPassesArgs) (map[string]any, error) {
	h, err := household(args.AccountID)
	if err != nil {
		return nil, err
	}
	d, err := time.Parse(day, strings.TrimSpace(args.Date))
	if err != nil {
		return nil, fmt.Errorf("give the date as YYYY-MM-DD")
	}
	if d.Before(today()) {
		return nil, fmt.Errorf("the date is in the past")
	}
	if args.Quantity < 1 {
		return nil, fmt.Errorf("buy at least one pass")
	}
	used, err := passesUsed(h.String("id"), d.Year())
	if err != nil {
		return nil, err
	}
	left := h.Int("visitor_allowance") - used
	if int64(args.Quantity) > left {
		return nil, fmt.Errorf("only %d visitor passes are left for %d", left, d.Year())
	}
	if _, err := sdk.Exec(`INSERT INTO visitor_passes (household_id, pass_date, quantity, bought_at) VALUES (?, ?, ?, ?)`, h.String("id"), d.Format(day), args.Quantity, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	return map[string]any{"date": d.Format(day), "quantity": args.Quantity, "left": left - int64(args.Quantity)}, nil
}
