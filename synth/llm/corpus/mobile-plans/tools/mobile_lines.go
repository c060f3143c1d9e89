package tools

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
)

// digits keeps the digits of a phone number ("07700 900123" → "07700900123").
func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// The line's phone number, spaces allowed, such as 07700 900123.
	PhoneNumber string `json:"phone_number"`
	// The account PIN.
	Pin string `json:"pin"`
}

// VerifyCustomer verifies a customer by phone number and PIN.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT c.id AS customer_id, c.name, l.msisdn, l.plan_code, l.status, c.pin FROM lines l JOIN customers c ON c.id = l.customer_id WHERE l.msisdn = ?`, digits(args.PhoneNumber))
	if err == sdk.ErrNoRows || (err == nil && row.String("pin") != strings.TrimSpace(args.Pin)) {
		return sdk.Row{}, fmt.Errorf("the phone number and PIN do not match an account")
	} else if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT c.id AS customer_id, c.name, l.msisdn, l.plan_code, l.status FROM lines l JOIN customers c ON c.id = l.customer_id WHERE l.msisdn = ?`, row.String("msisdn"))
}

func lineRow(msisdn string) (sdk.Row, error) {
	l, err := sdk.QueryRow(`SELECT l.msisdn, l.customer_id, l.plan_code, p.name AS plan_name, p.roaming_allowed, l.status, l.cycle_start, COALESCE(l.last_plan_change, '') AS last_plan_change
		FROM lines l JOIN plans p ON p.code = l.plan_code WHERE l.msisdn = ?`, digits(msisdn))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no line has the number %s", msisdn)
	}
	return l, err
}

// LineArgs name a line.
type LineArgs struct {
	// The line's number.
	Msisdn string `json:"msisdn"`
}

// GetLine returns a line with its add-ons and SIM.
func GetLine(args LineArgs) (map[string]any, error) {
	return lineDetail(args.Msisdn)
}

func lineDetail(msisdn string) (map[string]any, error) {
	l, err := lineRow(msisdn)
	if err != nil {
		return nil, err
	}
	addons, err := sdk.Query(`SELECT a.code, a.name, a.kind FROM line_addons la JOIN addons a ON a.code = la.addon_code WHERE la.msisdn = ? ORDER BY la.id`, l.String("msisdn"))
	if err != nil {
		return nil, err
	}
	sim, err := sdk.Query(`SELECT iccid, status FROM sims WHERE msisdn = ? ORDER BY updated_at DESC`, l.String("msisdn"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"msisdn": l.String("msisdn"), "plan_code": l.String("plan_code"), "plan_name": l.String("plan_name"),
		"status": l.String("status"), "cycle_start": l.String("cycle_start"), "last_plan_change": l.String("last_plan_change"),
		"addons": addons, "sims": sim}, nil
}

// ListPlans lists the plans.
func ListPlans() (sdk.Rows, error) {
	return sdk.Query(`SELECT code, name, monthly_price, data_gb, roaming_allowed = 1 AS roaming_allowed FROM plans ORDER BY monthly_price`)
}

// ListAddons lists the add-ons.
func ListAddons() (sdk.Rows, error) {
	return sdk.Query(`SELECT code, name, kind, monthly_price FROM addons ORDER BY kind, monthly_price`)
}

// ChangePlanArgs are the arguments of change_plan.
type ChangePlanArgs struct {
	// The line's number.
	Msisdn string `json:"msisdn"`
	// The new plan's code from list_plans.
	PlanCode string `json:"plan_code"`
}

// ChangePlan moves an active line to another plan, once per billing cycle.
func ChangePlan(args ChangePlanArgs) (map[string]any, error) {
	l, err := lineRow(args.Msisdn)
	if err != nil {
		return nil, err
	}
	if l.String("status") != "active" {
		return nil, fmt.Errorf("the line is %s", l.String("status"))
	}
	p, err := sdk.QueryRow(`SELECT code, name, roaming_allowed FROM plans WHERE lower(code) = lower(?)`, strings.TrimSpace(args.PlanCode))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no plan has the code %s", args.PlanCode)
	} else if err != nil {
		return nil, err
	}
	if p.String("code") == l.String("plan_code") {
		return nil, fmt.Errorf("the line is already on %s", p.String("name"))
	}
	if last := l.String("last_plan_change"); last != "" && last >= l.String("cycle_start") {
		return nil, fmt.Errorf("the plan already changed on %s in this billing cycle (from %s)", last, l.String("cycle_start"))
	}
	if p.Int("roaming_allowed") != 1 {
		r, err := sdk.QueryRow(`SELECT count(*) AS n FROM line_addons la JOIN addons a ON a.code = la.addon_code WHERE la.msisdn = ? AND a.kind = 'roaming'`, l.String("msisdn"))
		if err != nil {
			return nil, err
		}
		if r.Int("n") > 0 {
			return nil, fmt.Errorf("%s does not allow roaming and the line has a roaming add-on: remove it first", p.String("name"))
		}
	}
	today := sdk.Now().UTC().Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE lines SET plan_code = ?, last_plan_change = ? WHERE msisdn = ?`, p.String("code"), today, l.String("msisdn")); err != nil {
		return nil, err
	}
	return lineDetail(l.String("msisdn"))
}

// AddonArgs name a line and an add-on.
type AddonArgs struct {
	// The line's number.
	Msisdn string `json:"msisdn"`
	// The add-on's code from list_addons.
	AddonCode string `json:"addon_code"`
}

// AddAddon adds an add-on to an active line.
func AddAddon(args AddonArgs) (map[string]any, error) {
	l, err := lineRow(args.Msisdn)
	if err != nil {
		return nil, err
	}
	if l.String("status") != "active" {
		return nil, fmt.Errorf("the line is %s", l.String("status"))
	}
	a, err := sdk.QueryRow(`SELECT code, name, kind FROM addons WHERE upper(code) = upper(?)`, strings.TrimSpace(args.AddonCode))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no add-on has the code %s", args.AddonCode)
	} else if err != nil {
		return nil, err
	}
	if a.String("kind") == "roaming" && l.Int("roaming_allowed") != 1 {
		return nil, fmt.Errorf("%s does not allow roaming add-ons", l.String("plan_name"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM line_addons WHERE msisdn = ? AND addon_code = ?`, l.String("msisdn"), a.String("code")); err == nil {
		return nil, fmt.Errorf("%s is already active on the line", a.String("name"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO line_addons (msisdn, addon_code, added_at) VALUES (?, ?, ?)`, l.String("msisdn"), a.String("code"), sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	return lineDetail(l.String("msisdn"))
}

// RemoveAddon removes an active add-on from a line.
func RemoveAddon(args AddonArgs) (map[string]any, error) {
	l, err := lineRow(args.Msisdn)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM line_addons WHERE msisdn = ? AND upper(addon_code) = upper(?)`, l.String("msisdn"), strings.TrimSpace(args.AddonCode))
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("the add-on %s is not active on the line", args.AddonCode)
	}
	return lineDetail(l.String("msisdn"))
}
