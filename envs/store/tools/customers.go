package tools

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindCustomerByEmail looks up a customer by email address and returns the
// customer id and name. Use it to authenticate the user.
func FindCustomerByEmail(args FindCustomerByEmailArgs) (sdk.Row, error) {
	email := strings.ToLower(strings.TrimSpace(args.Email))
	row, err := sdk.QueryRow(`SELECT customer_id, first_name, last_name FROM customers WHERE lower(email) = ?`, email)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("no customer with email %s", args.Email)
	}
	return row, err
}

type FindCustomerByEmailArgs struct {
	// The customer's email address, such as "olivia.chen@example.com".
	Email string `json:"email"`
}

// FindCustomerByNameZip looks up a customer by first name, last name and the
// zip code of one of their saved addresses. Use it to authenticate a user who
// does not remember their email.
func FindCustomerByNameZip(args FindCustomerByNameZipArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT DISTINCT c.customer_id, c.first_name, c.last_name
		FROM customers c JOIN addresses a USING (customer_id)
		WHERE lower(c.first_name) = lower(?) AND lower(c.last_name) = lower(?) AND a.zip = ?
		ORDER BY c.customer_id`,
		strings.TrimSpace(args.FirstName), strings.TrimSpace(args.LastName), strings.TrimSpace(args.Zip))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("no customer named %s %s with zip code %s", args.FirstName, args.LastName, args.Zip)
	}
	return row, err
}

type FindCustomerByNameZipArgs struct {
	// First name, such as "Priya".
	FirstName string `json:"first_name"`
	// Last name, such as "Patel".
	LastName string `json:"last_name"`
	// Five-digit zip code of one of the customer's saved addresses.
	Zip string `json:"zip"`
}

// GetCustomer returns a customer's profile: contact details, tier, saved
// addresses, payment methods, gift cards and a summary of their orders.
func GetCustomer(args GetCustomerArgs) (map[string]any, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	id := c.String("customer_id")
	addrs, err := sdk.Query(`SELECT address_id, label, line1, line2, city, state, zip, country, is_default
		FROM addresses WHERE customer_id = ? ORDER BY address_id`, id)
	if err != nil {
		return nil, err
	}
	pms, err := sdk.Query(`SELECT payment_method_id, type, brand, last4, account_email, is_default
		FROM payment_methods WHERE customer_id = ? ORDER BY payment_method_id`, id)
	if err != nil {
		return nil, err
	}
	gcs, err := sdk.Query(`SELECT code, balance_cents, status, expires_at FROM gift_cards
		WHERE customer_id = ? ORDER BY code`, id)
	if err != nil {
		return nil, err
	}
	orders, err := sdk.Query(`SELECT order_id, status, placed_at, total_cents FROM orders
		WHERE customer_id = ? ORDER BY placed_at`, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"customer":        c,
		"addresses":       addrs,
		"payment_methods": pms,
		"gift_cards":      gcs,
		"orders":          orders,
	}, nil
}

type GetCustomerArgs struct {
	// The customer id, such as "C1001".
	CustomerID string `json:"customer_id"`
}

// UpdateContactInfo changes a customer's email address and/or phone number.
func UpdateContactInfo(args UpdateContactInfoArgs) (sdk.Row, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return sdk.Row{}, err
	}
	id := c.String("customer_id")
	email := strings.ToLower(strings.TrimSpace(args.Email))
	phone := strings.TrimSpace(args.Phone)
	if email == "" && phone == "" {
		return sdk.Row{}, fmt.Errorf("give a new email or a new phone number")
	}
	if email != "" {
		if !regexp.MustCompile(`^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`).MatchString(email) {
			return sdk.Row{}, fmt.Errorf("%q is not a valid email address", args.Email)
		}
		if _, err := sdk.QueryRow(`SELECT 1 FROM customers WHERE lower(email) = ? AND customer_id <> ?`, email, id); err == nil {
			return sdk.Row{}, fmt.Errorf("email %s is already used by another account", email)
		} else if err != sdk.ErrNoRows {
			return sdk.Row{}, err
		}
	}
	if phone != "" {
		phone, err = formatPhone(phone)
		if err != nil {
			return sdk.Row{}, err
		}
	}
	if _, err := sdk.Exec(`UPDATE customers SET email = COALESCE(NULLIF(?, ''), email),
		phone = COALESCE(NULLIF(?, ''), phone) WHERE customer_id = ?`, email, phone, id); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT customer_id, first_name, last_name, email, phone FROM customers WHERE customer_id = ?`, id)
}

type UpdateContactInfoArgs struct {
	// The customer id, such as "C1001".
	CustomerID string `json:"customer_id"`
	// New email address; omit to keep the current one.
	Email string `json:"email,omitempty"`
	// New US phone number with 10 digits, such as "(415) 555-0100"; omit to keep the current one.
	Phone string `json:"phone,omitempty"`
}

// formatPhone normalizes a 10-digit US phone number to "(415) 555-0100".
func formatPhone(p string) (string, error) {
	var digits []byte
	for i := 0; i < len(p); i++ {
		if p[i] >= '0' && p[i] <= '9' {
			digits = append(digits, p[i])
		}
	}
	if len(digits) == 11 && digits[0] == '1' {
		digits = digits[1:]
	}
	if len(digits) != 10 {
		return "", fmt.Errorf("%q is not a 10-digit US phone number", p)
	}
	d := string(digits)
	return fmt.Sprintf("(%s) %s-%s", d[:3], d[3:6], d[6:]), nil
}

// validateAddress checks a US street address.
func validateAddress(line1, city, state, zip string) error {
	if strings.TrimSpace(line1) == "" || strings.TrimSpace(city) == "" {
		return fmt.Errorf("line1 and city are required")
	}
	if !regexp.MustCompile(`^[A-Z]{2}$`).MatchString(state) {
		return fmt.Errorf("state must be a two-letter code such as \"NY\", not %q", state)
	}
	if !regexp.MustCompile(`^[0-9]{5}$`).MatchString(zip) {
		return fmt.Errorf("zip must have five digits, not %q", zip)
	}
	return nil
}

// AddAddress saves a new address in a customer's address book, optionally as
// their default address. It does not change the address of existing orders.
func AddAddress(args AddAddressArgs) (sdk.Row, error) {
	c, err := loadCustomer(args.CustomerID)
	if err != nil {
		return sdk.Row{}, err
	}
	id := c.String("customer_id")
	state := strings.ToUpper(strings.TrimSpace(args.State))
	zip := strings.TrimSpace(args.Zip)
	if err := validateAddress(args.Line1, args.City, state, zip); err != nil {
		return sdk.Row{}, err
	}
	label := strings.ToLower(strings.TrimSpace(args.Label))
	if label == "" {
		return sdk.Row{}, fmt.Errorf("label is required")
	}
	if args.MakeDefault {
		if _, err := sdk.Exec(`UPDATE addresses SET is_default = 0 WHERE customer_id = ?`, id); err != nil {
			return sdk.Row{}, err
		}
	}
	def := 0
	if args.MakeDefault {
		def = 1
	}
	res, err := sdk.Exec(`INSERT INTO addresses (customer_id, label, line1, line2, city, state, zip, is_default)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, label, strings.TrimSpace(args.Line1), strings.TrimSpace(args.Line2),
		strings.TrimSpace(args.City), state, zip, def)
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT * FROM addresses WHERE address_id = ?`, res.LastInsertID)
}

type AddAddressArgs struct {
	// The customer id, such as "C1001".
	CustomerID string `json:"customer_id"`
	// A short label for the address, such as "home" or "work".
	Label string `json:"label"`
	// Street address, such as "455 Atlantic Ave".
	Line1 string `json:"line1"`
	// Apartment, suite or floor, such as "Apt 3B"; omit if none.
	Line2 string `json:"line2,omitempty"`
	// City.
	City string `json:"city"`
	// Two-letter state code, such as "NY".
	State string `json:"state"`
	// Five-digit zip code.
	Zip string `json:"zip"`
	// Make this the customer's default address (the previous default is unset).
	MakeDefault bool `json:"make_default,omitempty"`
}
