package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs identify a shipper.
type VerifyCustomerArgs struct {
	// The customer code, such as FC-201.
	CustomerCode string `json:"customer_code"`
	// The customer's contact email.
	ContactEmail string `json:"contact_email"`
}

// VerifyCustomer checks a customer code against its contact email.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	c, err := sdk.QueryRow(`SELECT code, name, contact_email FROM customers WHERE code = ?`, strings.ToUpper(strings.TrimSpace(args.CustomerCode)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no customer %q", args.CustomerCode)
	}
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(c.String("contact_email"), strings.TrimSpace(args.ContactEmail)) {
		return nil, fmt.Errorf("the contact email does not match customer %s", c.String("code"))
	}
	return map[string]any{"customer_code": c.String("code"), "name": c.String("name"), "verified": true}, nil
}

// FindVoyagesArgs name a route and optionally a date.
type FindVoyagesArgs struct {
	// The origin port's name, such as Rotterdam.
	Origin string `json:"origin"`
	// The destination port's name, such as New York.
	Destination string `json:"destination"`
	// Only the voyage departing on this date (YYYY-MM-DD).
	DepartsOn *string `json:"departs_on,omitempty"`
}

// FindVoyages lists voyages on a route with their free capacity.
func FindVoyages(args FindVoyagesArgs) (sdk.Rows, error) {
	from, err := portByName(args.Origin)
	if err != nil {
		return sdk.Rows{}, err
	}
	to, err := portByName(args.Destination)
	if err != nil {
		return sdk.Rows{}, err
	}
	q := `SELECT v.id AS voyage_id, v.vessel, v.departs_on, v.cutoff_on, v.capacity_teu,
		v.capacity_teu - ` + usedTEU + ` AS free_teu, v.rate_per_teu
		FROM voyages v WHERE v.origin_port = ? AND v.destination_port = ?`
	params := []any{from, to}
	if args.DepartsOn != nil && *args.DepartsOn != "" {
		q += ` AND v.departs_on = ?`
		params = append(params, strings.TrimSpace(*args.DepartsOn))
	}
	return sdk.Query(q+` ORDER BY v.departs_on`, params...)
}

// usedTEU is the SQL for the TEU booked on voyage v.
const usedTEU = `(SELECT COALESCE(SUM(b.containers_20 + 2 * b.containers_40), 0) FROM bookings b WHERE b.voyage_id = v.id AND b.status = 'confirmed')`

func portByName(name string) (string, error) {
	p, err := sdk.QueryRow(`SELECT code FROM ports WHERE lower(name) = lower(?) OR code = upper(?)`, strings.TrimSpace(name), strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no port named %q", name)
	}
	if err != nil {
		return "", err
	}
	return p.String("code"), nil
}

func customerExists(code string) error {
	_, err := sdk.QueryRow(`SELECT code FROM customers WHERE code = ?`, code)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no customer %q", code)
	}
	return err
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
