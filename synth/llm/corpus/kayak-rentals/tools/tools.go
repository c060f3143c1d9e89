package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	dryBagPrice = 5.0
	lateFee     = 15.0
	openHour    = 8
	closeHour   = 20
)

func getType(id string) (sdk.Row, error) {
	t, err := sdk.QueryRow("SELECT id, fleet, hourly_price, seats FROM kayak_types WHERE id = ?", strings.ToLower(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return t, fmt.Errorf("kayak type %q is not single or tandem", id)
	}
	return t, err
}

// freeBoats is the fewest boats of a type free in any hour of a period,
// not counting the rental except.
func freeBoats(t sdk.Row, date string, start, hours int64, except string) (int64, error) {
	if start < openHour || start+hours > closeHour || hours < 1 {
		return 0, fmt.Errorf("rentals run from %d:00 to %d:00", openHour, closeHour)
	}
	least := t.Int("fleet")
	for h := start; h < start+hours; h++ {
		n, err := sdk.QueryRow("SELECT COALESCE(SUM(boats), 0) AS n FROM rentals WHERE kayak_type = ? AND date = ? AND status = 'booked' AND start_hour <= ? AND start_hour + hours > ? AND id <> ?", t.String("id"), date, h, h, except)
		if err != nil {
			return 0, err
		}
		least = min(least, t.Int("fleet")-n.Int("n"))
	}
	return least, nil
}

func getRental(id string) (sdk.Row, error) {
	r, err := sdk.QueryRow("SELECT id, customer_id, kayak_type, boats, date, start_hour, hours, adults, children, status, price, dry_bag, life_jackets, cancel_fee, price + dry_bag * 5.0 AS total FROM rentals WHERE id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return r, fmt.Errorf("no rental %q", id)
	}
	return r, err
}

func bookedRental(id string) (sdk.Row, error) {
	r, err := getRental(id)
	if err == nil && r.String("status") != "booked" {
		err = fmt.Errorf("rental %s is %s", r.String("id"), r.String("status"))
	}
	return r, err
}

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// phone number
	Phone string `json:"phone"`
	// one of the customer's rental numbers, such as KR-201
	RentalID string `json:"rental_id"`
}

// VerifyCustomer verifies a customer by phone number and rental number;
// returns their id and name.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT c.id AS customer_id, c.name FROM customers c JOIN rentals r ON r.customer_id = c.id WHERE c.phone = ? AND r.id = ?", strings.TrimSpace(args.Phone), strings.ToUpper(strings.TrimSpace(args.RentalID)))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, errors.New("the phone number and rental number do not match")
	}
	return c, err
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListRentals lists a customer's rentals: id, kayak type, boats, date, start
// hour, hours, people, status, extras and total.
func ListRentals(args CustomerArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT id, kayak_type, boats, date, start_hour, hours, adults, children, status, dry_bag, life_jackets, price + dry_bag * 5.0 AS total, cancel_fee FROM rentals WHERE customer_id = ? ORDER BY date, start_hour", args.CustomerID)
}

// RentalArgs name a rental.
type RentalArgs struct {
	// rental id
	RentalID string `json:"rental_id"`
}

// GetRental returns one rental with its total.
func GetRental(args RentalArgs) (sdk.Row, error) { return getRental(args.RentalID) }

// AvailabilityArgs are the arguments of check_availability.
type AvailabilityArgs struct {
	// single or tandem
	KayakType string `json:"kayak_type"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// start hour
	StartHour int64 `json:"start_hour"`
	// hours
	Hours int64 `json:"hours"`
}

// CheckAvailability says how many kayaks of a type are free for every hour of
// a period.
func CheckAvailability(args AvailabilityArgs) (map[string]any, error) {
	t, err := getType(args.KayakType)
	if err != nil {
		return nil, err
	}
	n, err := freeBoats(t, strings.TrimSpace(args.Date), args.StartHour, args.Hours, "")
	if err != nil {
		return nil, err
	}
	return map[string]any{"kayak_type": t.String("id"), "date": strings.TrimSpace(args.Date), "start_hour": args.StartHour, "hours": args.Hours, "free": n}, nil
}

// RentArgs are the arguments of rent_kayaks.
type RentArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// single or tandem
	KayakType string `json:"kayak_type"`
	// number of kayaks
	Boats int64 `json:"boats"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// start hour
	StartHour int64 `json:"start_hour"`
	// hours
	Hours int64 `json:"hours"`
	// adults
	Adults int64 `json:"adults"`
	// children under 12
	Children int64 `json:"children,omitempty"`
}

// RentKayaks rents kayaks for a group. It fails when too few are free, the
// people don't fit the seats, or children are not each in a tandem with an
// adult.
func RentKayaks(args RentArgs) (sdk.Row, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	t, err := getType(args.KayakType)
	if err != nil {
		return sdk.Row{}, err
	}
	d, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("date %q is not in YYYY-MM-DD form", args.Date)
	}
	if !d.Add(time.Duration(args.StartHour) * time.Hour).After(sdk.Now()) {
		return sdk.Row{}, errors.New("that time has passed")
	}
	if args.Boats < 1 || args.Adults < 0 || args.Children < 0 {
		return sdk.Row{}, errors.New("rent at least one kayak")
	}
	if args.Children > 0 && (t.String("id") != "tandem" || args.Children > args.Boats || args.Adults < args.Children) {
		return sdk.Row{}, errors.New("children under 12 may paddle only in a tandem with an adult, one child per tandem")
	}
	people := args.Adults + args.Children
	if people < args.Boats || people > args.Boats*t.Int("seats") {
		return sdk.Row{}, fmt.Errorf("%d people do not fit %d %s kayaks", people, args.Boats, t.String("id"))
	}
	date := d.Format("2006-01-02")
	free, err := freeBoats(t, date, args.StartHour, args.Hours, "")
	if err != nil {
		return sdk.Row{}, err
	}
	if args.Boats > free {
		return sdk.Row{}, fmt.Errorf("only %d %s kayaks are free then", free, t.String("id"))
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 200) + 1 AS n FROM rentals WHERE id LIKE 'KR-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("KR-%d", next.Int("n"))
	price := float64(args.Boats*args.Hours) * t.Float("hourly_price")
	if _, err := sdk.Exec("INSERT INTO rentals (id, customer_id, kayak_type, boats, date, start_hour, hours, adults, children, status, price, dry_bag, life_jackets, cancel_fee) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'booked', ?, 0, '', 0)",
		id, args.CustomerID, t.String("id"), args.Boats, date, args.StartHour, args.Hours, args.Adults, args.Children, price); err != nil {
		return sdk.Row{}, err
	}
	return getRental(id)
}

// ExtendArgs are the arguments of extend_rental.
type ExtendArgs struct {
	// rental id
	RentalID string `json:"rental_id"`
	// hours to add
	Hours int64 `json:"hours"`
}

// ExtendRental adds hours to a booked rental while its boats are free after
// it; reprices it.
func ExtendRental(args ExtendArgs) (sdk.Row, error) {
	r, err := bookedRental(args.RentalID)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.Hours < 1 {
		return sdk.Row{}, errors.New("add at least one hour")
	}
	t, err := getType(r.String("kayak_type"))
	if err != nil {
		return sdk.Row{}, err
	}
	hours := r.Int("hours") + args.Hours
	free, err := freeBoats(t, r.String("date"), r.Int("start_hour"), hours, r.String("id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if free < r.Int("boats") {
		return sdk.Row{}, fmt.Errorf("the kayaks are not free for %d more hours", args.Hours)
	}
	price := float64(r.Int("boats")*hours) * t.Float("hourly_price")
	if _, err := sdk.Exec("UPDATE rentals SET hours = ?, price = ? WHERE id = ?", hours, price, r.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getRental(r.String("id"))
}

// AddDryBag adds a dry bag (5.00) to a booked rental.
func AddDryBag(args RentalArgs) (sdk.Row, error) {
	r, err := bookedRental(args.RentalID)
	if err != nil {
		return sdk.Row{}, err
	}
	if r.Int("dry_bag") == 1 {
		return sdk.Row{}, errors.New("the rental already has a dry bag")
	}
	if _, err := sdk.Exec("UPDATE rentals SET dry_bag = 1 WHERE id = ?", r.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getRental(r.String("id"))
}

// JacketsArgs are the arguments of add_life_jackets.
type JacketsArgs struct {
	// rental id
	RentalID string `json:"rental_id"`
	// sizes such as S, M, L
	Sizes []string `json:"sizes"`
}

// AddLifeJackets adds life jackets of the given sizes to a booked rental.
func AddLifeJackets(args JacketsArgs) (sdk.Row, error) {
	r, err := bookedRental(args.RentalID)
	if err != nil {
		return sdk.Row{}, err
	}
	var sizes []string
	if s := r.String("life_jackets"); s != "" {
		sizes = strings.Split(s, ",")
	}
	for _, s := range args.Sizes {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s == "" {
			continue
		}
		sizes = append(sizes, s)
	}
	if len(sizes) == 0 {
		return sdk.Row{}, errors.New("give at least one size")
	}
	if _, err := sdk.Exec("UPDATE rentals SET life_jackets = ? WHERE id = ?", strings.Join(sizes, ","), r.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getRental(r.String("id"))
}

// CancelRental cancels a booked rental: free 24 hours or more before it
// starts, 15.00 later.
func CancelRental(args RentalArgs) (sdk.Row, error) {
	r, err := bookedRental(args.RentalID)
	if err != nil {
		return sdk.Row{}, err
	}
	d, err := time.Parse("2006-01-02", r.String("date"))
	if err != nil {
		return sdk.Row{}, err
	}
	fee := 0.0
	if d.Add(time.Duration(r.Int("start_hour"))*time.Hour).Sub(sdk.Now()).Hours() < 24 {
		fee = lateFee
	}
	if _, err := sdk.Exec("UPDATE rentals SET status = 'cancelled', cancel_fee = ? WHERE id = ?", fee, r.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getRental(r.String("id"))
}
