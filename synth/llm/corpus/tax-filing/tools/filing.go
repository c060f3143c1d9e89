package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ExpenseArgs describe a deductible expense.
type ExpenseArgs struct {
	// The taxpayer id find_taxpayer returned.
	TaxpayerID string `json:"taxpayer_id"`
	// Tax year.
	TaxYear int `json:"tax_year"`
	// charity, medical or education.
	Category string `json:"category"`
	// Who was paid.
	Payee string `json:"payee"`
	// The amount.
	Amount float64 `json:"amount"`
}

// AddExpense adds a deductible expense to a draft return.
func AddExpense(args ExpenseArgs) (map[string]any, error) {
	r, err := draftReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	cat := strings.ToLower(strings.TrimSpace(args.Category))
	if cat != "charity" && cat != "medical" && cat != "education" {
		return nil, fmt.Errorf("category must be charity, medical or education, not %q", args.Category)
	}
	if args.Amount <= 0 || strings.TrimSpace(args.Payee) == "" {
		return nil, fmt.Errorf("give a payee and a positive amount")
	}
	if _, err := sdk.Exec(`INSERT INTO expenses (return_id, category, payee, amount) VALUES (?, ?, ?, ?)`, r.String("id"), cat, strings.TrimSpace(args.Payee), money(args.Amount)); err != nil {
		return nil, err
	}
	t, err := totals(r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"category": cat, "amount": money(args.Amount), "totals": t}, nil
}

// DependantArgs describe a dependant.
type DependantArgs struct {
	// The taxpayer id find_taxpayer returned.
	TaxpayerID string `json:"taxpayer_id"`
	// Tax year.
	TaxYear int `json:"tax_year"`
	// The dependant's full name.
	Name string `json:"name"`
	// Date of birth YYYY-MM-DD.
	BirthDate string `json:"birth_date"`
}

// AddDependant claims a dependant on a draft return.
func AddDependant(args DependantArgs) (map[string]any, error) {
	r, err := draftReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(args.Name)
	if _, err := time.Parse("2006-01-02", strings.TrimSpace(args.BirthDate)); err != nil || name == "" {
		return nil, fmt.Errorf("give the dependant's name and date of birth as YYYY-MM-DD")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM dependants WHERE return_id = ? AND lower(name) = ?`, r.String("id"), strings.ToLower(name)); err == nil {
		return nil, fmt.Errorf("%s is already claimed on this return", name)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO dependants (return_id, name, birth_date) VALUES (?, ?, ?)`, r.String("id"), name, strings.TrimSpace(args.BirthDate)); err != nil {
		return nil, err
	}
	t, err := totals(r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"dependant": name, "totals": t}, nil
}

// FileReturn files a complete draft return before its deadline.
func FileReturn(args ReturnArgs) (map[string]any, error) {
	r, err := draftReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	c, err := sdk.QueryRow(`SELECT (SELECT COUNT(*) FROM incomes WHERE return_id = ?) AS incomes, (SELECT COUNT(*) FROM documents WHERE return_id = ? AND verified = 0) AS unverified`, r.String("id"), r.String("id"))
	if err != nil {
		return nil, err
	}
	if c.Int("incomes") == 0 {
		return nil, fmt.Errorf("the return has no income record")
	}
	if c.Int("unverified") > 0 {
		return nil, fmt.Errorf("the return has %d unverified document(s)", c.Int("unverified"))
	}
	if today() > r.String("deadline") {
		return nil, fmt.Errorf("the deadline %s has passed", r.String("deadline"))
	}
	if _, err := sdk.Exec(`UPDATE returns SET status = 'filed', filed_at = ? WHERE id = ?`, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), r.String("id")); err != nil {
		return nil, err
	}
	t, err := totals(r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"tax_year": args.TaxYear, "status": "filed", "totals": t}, nil
}

// RequestExtension moves a draft return's deadline 4 months later, once.
func RequestExtension(args ReturnArgs) (map[string]any, error) {
	r, err := draftReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	if r.Int("extended") == 1 {
		return nil, fmt.Errorf("the %d return already has an extension", args.TaxYear)
	}
	if today() > r.String("deadline") {
		return nil, fmt.Errorf("the deadline %s has passed", r.String("deadline"))
	}
	d, err := time.Parse("2006-01-02", r.String("deadline"))
	if err != nil {
		return nil, err
	}
	nd := d.AddDate(0, 4, 0).Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE returns SET deadline = ?, extended = 1 WHERE id = ?`, nd, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"tax_year": args.TaxYear, "deadline": nd, "extended": true}, nil
}

// AmendReturn adds an income record to a filed return and marks it amended.
func AmendReturn(args IncomeArgs) (map[string]any, error) {
	r, err := taxReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	if r.String("status") == "draft" {
		return nil, fmt.Errorf("the %d return is a draft: add the income directly", args.TaxYear)
	}
	id, err := insertIncome(r.String("id"), args)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE returns SET status = 'amended' WHERE id = ?`, r.String("id")); err != nil {
		return nil, err
	}
	note := fmt.Sprintf("added %s income from %s", strings.ToLower(args.Kind), strings.TrimSpace(args.Payer))
	if _, err := sdk.Exec(`INSERT INTO amendments (return_id, amended_at, note) VALUES (?, ?, ?)`, r.String("id"), sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), note); err != nil {
		return nil, err
	}
	t, err := totals(r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"tax_year": args.TaxYear, "status": "amended", "income_id": id, "totals": t}, nil
}
