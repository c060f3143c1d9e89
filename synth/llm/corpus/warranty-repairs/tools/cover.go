package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// today is the clock's date, YYYY-MM-DD.
func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// cover is what a product is covered for today.
type cover struct {
	serial          string
	size            string
	repairPrice     float64
	standardEnd     string
	lastCovered     string
	faultCovered    bool
	accidentCovered bool
	coveredRepairs  int64
}

// customerProduct checks the product exists and is the customer's.
func customerProduct(customerID, serial string) (p sdk.Row, err error) {
	p, err = sdk.QueryRow("SELECT p.serial, p.customer_id, p.purchased_on, m.name AS model, m.category, m.size, m.repair_price FROM products p JOIN models m ON m.id = p.model_id WHERE upper(p.serial) = upper(?)", strings.TrimSpace(serial))
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("no product with serial %q", serial)
	}
	if err != nil {
		return p, err
	}
	if p.String("customer_id") != customerID {
		return p, fmt.Errorf("product %s is not registered to this customer", serial)
	}
	return p, nil
}

// coverOf works out a product's cover on the clock's date.
func coverOf(customerID, serial string) (cover, error) {
	p, err := customerProduct(customerID, serial)
	if err != nil {
		return cover{}, err
	}
	bought, err := time.Parse("2006-01-02", p.String("purchased_on"))
	if err != nil {
		return cover{}, err
	}
	c := cover{serial: p.String("serial"), size: p.String("size"), repairPrice: p.Float("repair_price"), standardEnd: bought.AddDate(2, 0, 0).Format("2006-01-02")}
	d := today()
	plans, err := sdk.QueryRow("SELECT COALESCE(MAX(ends_on), '') AS last, COALESCE(SUM(starts_on <= ? AND ends_on >= ?), 0) AS in_force, COALESCE(SUM(starts_on <= ? AND ends_on >= ? AND accidental_damage = 1), 0) AS accidental FROM plans WHERE serial = ?", d, d, d, d, c.serial)
	if err != nil {
		return cover{}, err
	}
	c.lastCovered = c.standardEnd
	if last := plans.String("last"); last > c.lastCovered {
		c.lastCovered = last
	}
	c.faultCovered = d <= c.standardEnd || plans.Int("in_force") > 0
	c.accidentCovered = plans.Int("accidental") > 0
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM claims WHERE serial = ? AND status = 'completed' AND covered = 1 AND resolution = 'repair'", c.serial)
	if err != nil {
		return cover{}, err
	}
	c.coveredRepairs = n.Int("n")
	return c, nil
}

// openClaimOf returns the product's open or dispatched claim id, or "".
func openClaimOf(serial string) (string, error) {
	row, err := sdk.QueryRow("SELECT id FROM claims WHERE serial = ? AND status IN ('open', 'dispatched') LIMIT 1", serial)
	if errors.Is(err, sdk.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return row.String("id"), nil
}

// VerifyCustomerArgs are verify_customer's arguments.
type VerifyCustomerArgs struct {
	// a product serial number such as WM-50231
	Serial string `json:"serial"`
	// the email given by the customer
	Email string `json:"email"`
}

// VerifyCustomer verifies a customer by a serial and the registration email.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	row, err := sdk.QueryRow("SELECT c.id, c.name, c.email FROM products p JOIN customers c ON c.id = p.customer_id WHERE upper(p.serial) = upper(?)", strings.TrimSpace(args.Serial))
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && !strings.EqualFold(row.String("email"), strings.TrimSpace(args.Email))) {
		return nil, errors.New("the serial number and email do not match a registration")
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"customer_id": row.String("id"), "name": row.String("name")}, nil
}

// ListProductsArgs are list_products' arguments.
type ListProductsArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
}

// ListProducts lists the customer's registered products.
func ListProducts(args ListProductsArgs) (out sdk.Rows, err error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); err != nil {
		return out, fmt.Errorf("no customer with id %q", args.CustomerID)
	}
	return sdk.Query("SELECT p.serial, m.name AS model, m.category, m.size, p.purchased_on FROM products p JOIN models m ON m.id = p.model_id WHERE p.customer_id = ? ORDER BY p.serial", args.CustomerID)
}

// GetCoverArgs are get_cover's arguments.
type GetCoverArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the product's serial
	Serial string `json:"serial"`
}

// GetCover returns a product's cover today.
func GetCover(args GetCoverArgs) (map[string]any, error) {
	c, err := coverOf(args.CustomerID, args.Serial)
	if err != nil {
		return nil, err
	}
	plans, err := sdk.Query("SELECT name, starts_on, ends_on, accidental_damage FROM plans WHERE serial = ? ORDER BY starts_on", c.serial)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"serial":                       c.serial,
		"size":                         c.size,
		"standard_cover_ends_on":       c.standardEnd,
		"plans":                        plans,
		"faults_covered_today":         c.faultCovered,
		"accidental_covered_today":     c.accidentCovered,
		"covered_for_faults_until":     c.lastCovered,
		"completed_covered_repairs":    c.coveredRepairs,
		"out_of_warranty_repair_price": c.repairPrice,
	}, nil
}
