package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const day = "2006-01-02"

const insurancePrice = 9.0

func today() time.Time {
	t, _ := time.Parse(day, sdk.Now().UTC().Format(day))
	return t
}

// FindRenterArgs are the arguments of find_renter.
type FindRenterArgs struct {
	// The renter's email.
	Email string `json:"email"`
}

// FindRenter finds the signed-in renter by email.
func FindRenter(args FindRenterArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS renter_id, name FROM renters WHERE lower(email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no renter has the email %q", args.Email)
	}
	return row, err
}

func renterExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM renters WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no renter has the id %q", id)
	}
	return err
}

// RenterArgs name a renter.
type RenterArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
}

// ListRentals lists the renter's rentals with their monthly cost.
func ListRentals(args RenterArgs) (sdk.Rows, error) {
	if err := renterExists(args.RenterID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS rental_id, s.name AS site, u.id AS unit, u.size, r.insured, u.monthly_price + r.insured * ? AS monthly_cost, r.end_date, r.status
		FROM rentals r JOIN units u ON u.id = r.unit_id JOIN sites s ON s.id = u.site_id WHERE r.renter_id = ? ORDER BY r.id`, insurancePrice, args.RenterID)
}

func siteID(name string) (string, error) {
	s, err := sdk.QueryRow(`SELECT id FROM sites WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no site is called %q", name)
	}
	if err != nil {
		return "", err
	}
	return s.String("id"), nil
}

// ListUnitsArgs name a site.
type ListUnitsArgs struct {
	// Site name such as Riverside.
	SiteName string `json:"site_name"`
}

// ListUnits lists a site's units.
func ListUnits(args ListUnitsArgs) (sdk.Rows, error) {
	id, err := siteID(args.SiteName)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS unit, size, monthly_price, status FROM units WHERE site_id = ? ORDER BY id`, id)
}

func vacantUnit(site, size string) (sdk.Row, error) {
	size = strings.ToLower(strings.TrimSpace(size))
	if size != "small" && size != "medium" && size != "large" {
		return sdk.Row{}, fmt.Errorf("size must be small, medium or large, not %q", size)
	}
	u, err := sdk.QueryRow(`SELECT id, size, monthly_price FROM units WHERE site_id = ? AND size = ? AND status = 'vacant' ORDER BY id LIMIT 1`, site, size)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no %s unit is vacant at that site", size)
	}
	return u, err
}

// RentUnitArgs are the arguments of rent_unit.
type RentUnitArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
	// Site name.
	SiteName string `json:"site_name"`
	// small, medium or large.
	Size string `json:"size"`
}

// RentUnit rents a vacant unit of a size at a site.
func RentUnit(args RentUnitArgs) (map[string]any, error) {
	if err := renterExists(args.RenterID); err != nil {
		return nil, err
	}
	site, err := siteID(args.SiteName)
	if err != nil {
		return nil, err
	}
	u, err := vacantUnit(site, args.Size)
	if err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT id FROM rentals WHERE id LIKE 'RN-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "RN-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("RN-%d", max+1)
	if _, err := sdk.Exec(`INSERT INTO rentals (id, renter_id, unit_id, started_on, insured, end_date, status) VALUES (?, ?, ?, ?, 0, NULL, 'active')`, id, args.RenterID, u.String("id"), today().Format(day)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE units SET status = 'occupied' WHERE id = ?`, u.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": id, "unit": u.String("id"), "size": u.String("size"), "monthly_cost": u.Float("monthly_price")}, nil
}

// RentalArgs name a rental.
type RentalArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
	// Rental id such as RN-402.
	RentalID string `json:"rental_id"`
}

func activeRental(renter, id string) (sdk.Row, error) {
	if err := renterExists(renter); err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT r.id, r.unit_id, r.insured, r.end_date, r.status, u.site_id, u.size, u.monthly_price FROM rentals r JOIN units u ON u.id = r.unit_id WHERE r.id = ? AND r.renter_id = ?`,
		strings.ToUpper(strings.TrimSpace(id)), renter)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("rental %q is not one of this renter's rentals", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if r.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("rental %s has ended", r.String("id"))
	}
	return r, nil
}

// AddInsurance adds insurance cover to an active rental.
func AddInsurance(args RentalArgs) (map[string]any, error) {
	r, err := activeRental(args.RenterID, args.RentalID)
	if err != nil {
		return nil, err
	}
	if r.Int("insured") == 1 {
		return nil, fmt.Errorf("rental %s is already insured", r.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE rentals SET insured = 1 WHERE id = ?`, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": r.String("id"), "insured": true, "monthly_cost": r.Float("monthly_price") + insurancePrice}, nil
}

// ChangeSizeArgs are the arguments of change_unit_size.
type ChangeSizeArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
	// Rental id.
	RentalID string `json:"rental_id"`
	// small, medium or large.
	Size string `json:"size"`
}

// ChangeUnitSize moves a rental to a vacant unit of another size at its site.
func ChangeUnitSize(args ChangeSizeArgs) (map[string]any, error) {
	r, err := activeRental(args.RenterID, args.RentalID)
	if err != nil {
		return nil, err
	}
	if strings.ToLower(strings.TrimSpace(args.Size)) == r.String("size") {
		return nil, fmt.Errorf("rental %s is already a %s unit", r.String("id"), r.String("size"))
	}
	u, err := vacantUnit(r.String("site_id"), args.Size)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE units SET status = 'vacant' WHERE id = ?`, r.String("unit_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE units SET status = 'occupied' WHERE id = ?`, u.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE rentals SET unit_id = ? WHERE id = ?`, u.String("id"), r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": r.String("id"), "unit": u.String("id"), "size": u.String("size"), "monthly_cost": u.Float("monthly_price") + float64(r.Int("insured"))*insurancePrice}, nil
}

// NoticeArgs are the arguments of give_notice.
type NoticeArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
	// Rental id.
	RentalID string `json:"rental_id"`
	// End date YYYY-MM-DD.
	EndDate string `json:"end_date"`
}

// GiveNotice sets an active rental's end date at least 14 days ahead.
func GiveNotice(args NoticeArgs) (map[string]any, error) {
	r, err := activeRental(args.RenterID, args.RentalID)
	if err != nil {
		return nil, err
	}
	if !r.IsNull("end_date") {
		return nil, fmt.Errorf("rental %s already ends on %s", r.String("id"), r.String("end_date"))
	}
	end, err := time.Parse(day, strings.TrimSpace(args.EndDate))
	if err != nil {
		return nil, fmt.Errorf("give the end date as YYYY-MM-DD")
	}
	earliest := today().AddDate(0, 0, 14)
	if end.Before(earliest) {
		return nil, fmt.Errorf("the end date must be on or after %s (14 days' notice)", earliest.Format(day))
	}
	if _, err := sdk.Exec(`UPDATE rentals SET end_date = ? WHERE id = ?`, end.Format(day), r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"rental_id": r.String("id"), "end_date": end.Format(day)}, nil
}

// ListInvoices lists the renter's invoices.
func ListInvoices(args RenterArgs) (sdk.Rows, error) {
	if err := renterExists(args.RenterID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS invoice_id, rental_id, amount, due_on, status FROM invoices WHERE renter_id = ? ORDER BY due_on`, args.RenterID)
}

// PayInvoiceArgs name an invoice.
type PayInvoiceArgs struct {
	// The renter id find_renter returned.
	RenterID string `json:"renter_id"`
	// Invoice id such as IV-2.
	InvoiceID string `json:"invoice_id"`
}

// PayInvoice pays an overdue invoice in full.
func PayInvoice(args PayInvoiceArgs) (map[string]any, error) {
	if err := renterExists(args.RenterID); err != nil {
		return nil, err
	}
	iv, err := sdk.QueryRow(`SELECT id, amount, status FROM invoices WHERE id = ? AND renter_id = ?`, strings.ToUpper(strings.TrimSpace(args.InvoiceID)), args.RenterID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("invoice %q is not one of this renter's invoices", args.InvoiceID)
	}
	if err != nil {
		return nil, err
	}
	if iv.String("status") != "overdue" {
		return nil, fmt.Errorf("invoice %s is %s, not overdue", iv.String("id"), iv.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE invoices SET status = 'paid', paid_at = ? WHERE id = ?`, sdk.Now().UTC().Format(time.RFC3339), iv.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"invoice_id": iv.String("id"), "paid": iv.Float("amount"), "status": "paid"}, nil
}
