package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

func money(x float64) float64 { return math.Round(x*100) / 100 }

// FindTaxpayerArgs are the arguments of find_taxpayer.
type FindTaxpayerArgs struct {
	// The taxpayer's email.
	Email string `json:"email"`
}

// FindTaxpayer finds the signed-in taxpayer by email.
func FindTaxpayer(args FindTaxpayerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS taxpayer_id, name FROM taxpayers WHERE lower(email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no taxpayer has the email %q", args.Email)
	}
	return row, err
}

// taxReturn is a taxpayer's return for a year.
func taxReturn(taxpayerID string, year int) (sdk.Row, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM taxpayers WHERE id = ?`, taxpayerID); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no taxpayer has the id %q", taxpayerID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT id, tax_year, status, deadline, extended, filed_at FROM returns WHERE taxpayer_id = ? AND tax_year = ?`, taxpayerID, year)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("there is no %d return for this taxpayer", year)
	}
	return r, err
}

func draftReturn(taxpayerID string, year int) (sdk.Row, error) {
	r, err := taxReturn(taxpayerID, year)
	if err != nil {
		return sdk.Row{}, err
	}
	if r.String("status") != "draft" {
		return sdk.Row{}, fmt.Errorf("the %d return is %s: only a draft can change this way", year, r.String("status"))
	}
	return r, nil
}

// totals computes a return's income, deductions, tax, withholding and balance.
func totals(returnID string) (map[string]any, error) {
	t, err := sdk.QueryRow(`SELECT (SELECT COALESCE(SUM(amount), 0) FROM incomes WHERE return_id = ?) AS income,
		(SELECT COALESCE(SUM(withheld), 0) FROM incomes WHERE return_id = ?) AS withheld,
		(SELECT COALESCE(SUM(amount), 0) FROM expenses WHERE return_id = ?) AS deductions,
		(SELECT COUNT(*) FROM dependants WHERE return_id = ?) AS dependants`, returnID, returnID, returnID, returnID)
	if err != nil {
		return nil, err
	}
	tax := 0.2*(t.Float("income")-t.Float("deductions")) - 500*float64(t.Int("dependants"))
	if tax < 0 {
		tax = 0
	}
	tax = money(tax)
	return map[string]any{"income": money(t.Float("income")), "deductions": money(t.Float("deductions")), "dependants": t.Int("dependants"),
		"tax": tax, "withheld": money(t.Float("withheld")), "balance": money(tax - t.Float("withheld"))}, nil
}

// ReturnArgs name a taxpayer's return.
type ReturnArgs struct {
	// The taxpayer id find_taxpayer returned.
	TaxpayerID string `json:"taxpayer_id"`
	// Tax year such as 2023.
	TaxYear int `json:"tax_year"`
}

// GetReturn returns a return with its records and totals.
func GetReturn(args ReturnArgs) (map[string]any, error) {
	r, err := taxReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	id := r.String("id")
	incomes, err := sdk.Query(`SELECT id AS income_id, kind, payer, amount, withheld FROM incomes WHERE return_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	expenses, err := sdk.Query(`SELECT category, payee, amount FROM expenses WHERE return_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	deps, err := sdk.Query(`SELECT name, birth_date FROM dependants WHERE return_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	docs, err := sdk.Query(`SELECT id AS document_id, name, verified FROM documents WHERE return_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	t, err := totals(id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tax_year": args.TaxYear, "status": r.String("status"), "deadline": r.String("deadline"), "extended": r.Int("extended") == 1,
		"incomes": incomes, "expenses": expenses, "dependants": deps, "documents": docs, "totals": t}, nil
}

func nextIncomeID() (string, error) {
	rows, err := sdk.Query(`SELECT id FROM incomes WHERE id LIKE 'INC-%'`)
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "INC-")); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("INC-%d", max+1), nil
}

// IncomeArgs describe an income record.
type IncomeArgs struct {
	// The taxpayer id find_taxpayer returned.
	TaxpayerID string `json:"taxpayer_id"`
	// Tax year.
	TaxYear int `json:"tax_year"`
	// w2, 1099 or interest.
	Kind string `json:"kind"`
	// Who paid the income.
	Payer string `json:"payer"`
	// The income amount.
	Amount float64 `json:"amount"`
	// Tax withheld (0 when none).
	Withheld float64 `json:"withheld"`
}

// insertIncome adds an income record to a return after checking it.
func insertIncome(returnID string, args IncomeArgs) (string, error) {
	kind := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(args.Kind, "-", "")))
	if kind != "w2" && kind != "1099" && kind != "interest" {
		return "", fmt.Errorf("kind must be w2, 1099 or interest, not %q", args.Kind)
	}
	if args.Amount <= 0 || args.Withheld < 0 || strings.TrimSpace(args.Payer) == "" {
		return "", fmt.Errorf("give a payer, a positive amount and a withheld amount of 0 or more")
	}
	id, err := nextIncomeID()
	if err != nil {
		return "", err
	}
	_, err = sdk.Exec(`INSERT INTO incomes (id, return_id, kind, payer, amount, withheld) VALUES (?, ?, ?, ?, ?, ?)`,
		id, returnID, kind, strings.TrimSpace(args.Payer), money(args.Amount), money(args.Withheld))
	return id, err
}

// AddIncome adds an income record to a draft return.
func AddIncome(args IncomeArgs) (map[string]any, error) {
	r, err := draftReturn(args.TaxpayerID, args.TaxYear)
	if err != nil {
		return nil, err
	}
	id, err := insertIncome(r.String("id"), args)
	if err != nil {
		return nil, err
	}
	t, err := totals(r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"income_id": id, "totals": t}, nil
}

// RemoveIncomeArgs name an income record.
type RemoveIncomeArgs struct {
	// The taxpayer id find_taxpayer returned.
	TaxpayerID string `json:"taxpayer_id"`
	// Income id such as INC-307.
	IncomeID string `json:"income_id"`
}

// RemoveIncome removes an income record from a draft return.
func RemoveIncome(args RemoveIncomeArgs) (map[string]any, error) {
	in, err := sdk.QueryRow(`SELECT i.id, r.status, r.tax_year FROM incomes i JOIN returns r ON r.id = i.return_id WHERE i.id = ? AND r.taxpayer_id = ?`,
		strings.ToUpper(strings.TrimSpace(args.IncomeID)), args.TaxpayerID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("income %q is not on one of this taxpayer's returns", args.IncomeID)
	}
	if err != nil {
		return nil, err
	}
	if in.String("status") != "draft" {
		return nil, fmt.Errorf("the %d return is %s: only a draft can change this way", in.Int("tax_year"), in.String("status"))
	}
	if _, err := sdk.Exec(`DELETE FROM incomes WHERE id = ?`, in.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"removed": in.String("id")}, nil
}
