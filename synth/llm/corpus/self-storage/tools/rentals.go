package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// occupied is the SQL condition that unit u has a rental that is not over.
const occupied = `EXISTS (SELECT 1 FROM rentals r WHERE r.unit_id = u.id AND r.status IN ('active', 'ending'))`

// ListFreeUnitsArgs name a site and optionally a size.
type ListFreeUnitsArgs struct {
	// The site's name, such as Riverside.
	SiteName string `json:"site_name"`
	// small, medium or large.
	Size *string `json:"size,omitempty"`
}

// ListFreeUnits lists the free units at a site.
func ListFreeUnits(args ListFreeUnitsArgs) (map[string]any, error) {
	site, err := siteByName(args.SiteName)
	if err != nil {
		return nil, err
	}
	q := `SELECT u.id AS unit_id, u.size, u.monthly_rent FROM units u WHERE u.site_id = ? AND NOT ` + occupied
	params := []any{site.String("id")}
	if args.Size != nil && *args.Size != "" {
		size, err := sizeOf(*args.Size)
		if err != nil {
			return nil, err
		}
		q += ` AND u.size = ?`
		params = append(params, size)
	}
	rows, err := sdk.Query(q+` ORDER BY u.id`, params...)
	if err != nil {
		return nil, err
	}
	return map[string]any{"site": site.String("name"), "free_units": rows, "count": rows.Len()}, nil
}

// RentUnitArgs describe a new rental.
type RentUnitArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
	// The site's name.
	SiteName string `json:"site_name"`
	// small, medium or large.
	Size string `json:"size"`
}

// RentUnit rents the lowest-numbered free unit of a size at a site.
func RentUnit(args RentUnitArgs) (map[string]any, error) {
	if err := accountExists(args.AccountNo); err != nil {
		return nil, err
	}
	site, err := siteByName(args.SiteName)
	if err != nil {
		return nil, err
	}
	size, err := sizeOf(args.Size)
	if err != nil {
		return nil, err
	}
	u, err := freeUnit(site.String("id"), size)
	if err != nil {
		return nil, err
	}
	last, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(substr(id, 3) AS INTEGER)), 9000) AS n FROM rentals`)
	if err != nil {
		return nil, err
	}
	id := "R-" + strconv.FormatInt(last.Int("n")+1, 10)
	today := sdk.Now().UTC().Format("2006-01-02")
	if _, err := sdk.Exec(`INSERT INTO rentals (id, account_no, unit_id, start_date, status, monthly_rent, rent_from, insured) VALUES (?, ?, ?, ?, 'active', ?, ?, 0)`,
		id, args.AccountNo, u.String("id"), today, u.Float("monthly_rent"), today); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": id, "unit_id": u.String("id"), "site": site.String("name"), "size": size, "monthly_rent": u.Float("monthly_rent"), "start_date": today, "insured": false}, nil
}

// MoveRentalArgs name a rental and its new size.
type MoveRentalArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
	// The rental id, such as R-9002.
	RentalID string `json:"rental_id"`
	// The new size.
	Size string `json:"size"`
}

// MoveRental moves a rental to a free unit of another size at the same site.
func MoveRental(args MoveRentalArgs) (map[string]any, error) {
	r, err := activeRental(args.AccountNo, args.RentalID)
	if err != nil {
		return nil, err
	}
	size, err := sizeOf(args.Size)
	if err != nil {
		return nil, err
	}
	if size == r.String("size") {
		return nil, fmt.Errorf("rental %s is already a %s unit", r.String("id"), size)
	}
	u, err := freeUnit(r.String("site_id"), size)
	if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC()
	from := now.AddDate(0, 1, -now.Day()+1).Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE rentals SET unit_id = ?, monthly_rent = ?, rent_from = ? WHERE id = ?`, u.String("id"), u.Float("monthly_rent"), from, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": r.String("id"), "old_unit_id": r.String("unit_id"), "unit_id": u.String("id"), "size": size, "monthly_rent": u.Float("monthly_rent"), "rent_from": from}, nil
}

// SetInsuranceArgs name a rental and the cover wanted.
type SetInsuranceArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
	// The rental id.
	RentalID string `json:"rental_id"`
	// true to add cover, false to remove it.
	Insured bool `json:"insured"`
}

// SetInsurance adds or removes insurance cover on an active rental.
func SetInsurance(args SetInsuranceArgs) (map[string]any, error) {
	r, err := activeRental(args.AccountNo, args.RentalID)
	if err != nil {
		return nil, err
	}
	if r.Bool("insured") == args.Insured {
		return nil, fmt.Errorf("rental %s is already %s", r.String("id"), map[bool]string{true: "insured", false: "uninsured"}[args.Insured])
	}
	v := 0
	if args.Insured {
		v = 1
	}
	if _, err := sdk.Exec(`UPDATE rentals SET insured = ? WHERE id = ?`, v, r.String("id")); err != nil {
		return nil, err
	}
	total := r.Float("monthly_rent")
	if args.Insured {
		total += insuranceMonthly
	}
	return map[string]any{"rental_id": r.String("id"), "insured": args.Insured, "monthly_total": cents(total)}, nil
}

// RentalArgs name one of the account's rentals.
type RentalArgs struct {
	// The verified account number.
	AccountNo string `json:"account_no"`
	// The rental id.
	RentalID string `json:"rental_id"`
}

// EndRental gives 14 days' notice on an active rental.
func EndRental(args RentalArgs) (map[string]any, error) {
	r, err := activeRental(args.AccountNo, args.RentalID)
	if err != nil {
		return nil, err
	}
	end := sdk.Now().UTC().AddDate(0, 0, 14).Format("2006-01-02")
	if _, err := sdk.Exec(`UPDATE rentals SET status = 'ending', end_date = ? WHERE id = ?`, end, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": r.String("id"), "status": "ending", "end_date": end}, nil
}

func activeRental(account, id string) (sdk.Row, error) {
	if err := accountExists(account); err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT r.id, r.unit_id, u.site_id, u.size, r.status, r.monthly_rent, r.insured FROM rentals r JOIN units u ON u.id = r.unit_id
		WHERE r.id = ? AND r.account_no = ?`, strings.ToUpper(strings.TrimSpace(id)), account)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("account %s has no rental %q", account, id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if r.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("rental %s is %s, not active", r.String("id"), r.String("status"))
	}
	return r, nil
}

func freeUnit(site, size string) (sdk.Row, error) {
	u, err := sdk.QueryRow(`SELECT u.id, u.monthly_rent FROM units u WHERE u.site_id = ? AND u.size = ? AND NOT `+occupied+` ORDER BY u.id LIMIT 1`, site, size)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no %s unit is free at this site", size)
	}
	return u, err
}

func siteByName(name string) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT id, name FROM sites WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no site named %q", name)
	}
	return s, err
}

func sizeOf(s string) (string, error) {
	size := strings.ToLower(strings.TrimSpace(s))
	switch size {
	case "small", "medium", "large":
		return size, nil
	}
	return "", fmt.Errorf("size must be small, medium or large, not %q", s)
}
