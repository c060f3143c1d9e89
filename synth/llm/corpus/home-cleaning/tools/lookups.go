package tools

import (
	"errors"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// customer's email
	Email string `json:"email"`
	// account postcode
	Postcode string `json:"postcode"`
}

// VerifyCustomer verifies a customer by email and postcode and returns their
// id, name, number of bedrooms and loyalty credit. Call it before anything else.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id AS customer_id, name, bedrooms, loyalty_credit FROM customers WHERE lower(email) = lower(?) AND upper(replace(postcode, ' ', '')) = upper(replace(?, ' ', ''))",
		strings.TrimSpace(args.Email), strings.TrimSpace(args.Postcode))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, errors.New("the email and postcode do not match any customer")
	}
	return c, err
}

// ListServices lists the services (id, name, base price, price per bedroom)
// and the extras (id, name, price).
func ListServices() (map[string]any, error) {
	services, err := sdk.Query("SELECT id, name, base_price, per_bedroom FROM services ORDER BY base_price")
	if err != nil {
		return nil, err
	}
	extras, err := sdk.Query("SELECT id, name, price FROM extras ORDER BY id")
	if err != nil {
		return nil, err
	}
	return map[string]any{"services": services, "extras": extras}, nil
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListVisits lists a customer's visits, earliest first: id, service, cleaner,
// start, status (booked, completed, cancelled), price, extras, total (price
// plus extras), credit applied, cancellation fee, rating, and the visit it
// re-cleans if any.
func ListVisits(args CustomerArgs) (sdk.Rows, error) {
	if _, err := getCustomer(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT v.id, v.service_id AS service, c.name AS cleaner, v.start, v.status, v.price, COALESCE((SELECT group_concat(extra_id, ',') FROM (SELECT extra_id FROM visit_extras WHERE visit_id = v.id ORDER BY extra_id)), '') AS extras, round(v.price + COALESCE((SELECT SUM(price) FROM visit_extras WHERE visit_id = v.id), 0), 2) AS total, v.credit_applied, v.cancel_fee, v.rating, v.reclean_of FROM visits v JOIN cleaners c ON c.id = v.cleaner_id WHERE v.customer_id = ? ORDER BY v.start", args.CustomerID)
}

// DateArgs name a date.
type DateArgs struct {
	// YYYY-MM-DD
	Date string `json:"date"`
}

// ListFreeCleaners lists the cleaners with no booked visit on a date: id and name.
func ListFreeCleaners(args DateArgs) (sdk.Rows, error) {
	day := strings.TrimSpace(args.Date)
	if len(day) != 10 || day[4] != '-' || day[7] != '-' {
		return sdk.Rows{}, errors.New("date must be in YYYY-MM-DD form")
	}
	return sdk.Query("SELECT id, name FROM cleaners WHERE id NOT IN (SELECT cleaner_id FROM visits WHERE status = 'booked' AND substr(start, 1, 10) = ?) ORDER BY name", day)
}
