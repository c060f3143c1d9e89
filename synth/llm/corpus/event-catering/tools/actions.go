package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// PlaceOrderArgs are the arguments of place_order.
type PlaceOrderArgs struct {
	// client id
	ClientID string `json:"client_id"`
	// package id
	PackageID string `json:"package_id"`
	// YYYY-MM-DD
	EventDate string `json:"event_date"`
	// the venue's name and address
	Venue string `json:"venue"`
	// number of guests
	Guests int `json:"guests"`
}

// PlaceOrder places an order for a package. It fails with fewer than 10
// guests or an event date less than 7 days away. Returns the new order.
func PlaceOrder(args PlaceOrderArgs) (map[string]any, error) {
	if _, err := sdk.QueryRow("SELECT id FROM clients WHERE id = ?", args.ClientID); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no client with id %q", args.ClientID)
	} else if err != nil {
		return nil, err
	}
	p, err := getPackage(args.PackageID)
	if err != nil {
		return nil, err
	}
	days, err := daysUntil(args.EventDate)
	if err != nil {
		return nil, err
	}
	if days < orderLeadDays {
		return nil, fmt.Errorf("orders must be placed at least %d days before the event; %s is %d days away", orderLeadDays, strings.TrimSpace(args.EventDate), days)
	}
	if args.Guests < minGuests {
		return nil, fmt.Errorf("an order needs at least %d guests", minGuests)
	}
	venue := strings.TrimSpace(args.Venue)
	if venue == "" {
		return nil, errors.New("an order needs a venue")
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 2000) + 1 AS n FROM orders WHERE id LIKE 'CO-%'")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("CO-%d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO orders (id, client_id, package_id, event_date, venue, guests, status, discount_percent, paid, cancellation_charge, created_at) VALUES (?, ?, ?, ?, ?, ?, 'confirmed', 0, 0, 0, ?)",
		id, args.ClientID, p.String("id"), strings.TrimSpace(args.EventDate), venue, args.Guests, stamp(sdk.Now())); err != nil {
		return nil, err
	}
	return orderView(id)
}

// ChangeGuestsArgs are the arguments of change_guests.
type ChangeGuestsArgs struct {
	// order number
	OrderID string `json:"order_id"`
	// new number of guests
	Guests int `json:"guests"`
}

// ChangeGuests changes a confirmed order's guest count. It fails less than 5
// days before the event, below 10 guests, or below the number of dietary
// meals.
func ChangeGuests(args ChangeGuestsArgs) (map[string]any, error) {
	o, err := confirmedOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	days, err := daysUntil(o.String("event_date"))
	if err != nil {
		return nil, err
	}
	if days < changeLeadDays {
		return nil, fmt.Errorf("the guest count can change until %d days before the event; it is %d days away", changeLeadDays, days)
	}
	if args.Guests < minGuests {
		return nil, fmt.Errorf("an order needs at least %d guests", minGuests)
	}
	if int64(args.Guests) < o.Int("dietary_meals") {
		return nil, fmt.Errorf("the order has %d dietary meals, more than %d guests", o.Int("dietary_meals"), args.Guests)
	}
	if _, err := sdk.Exec("UPDATE orders SET guests = ? WHERE id = ?", args.Guests, o.String("order_id")); err != nil {
		return nil, err
	}
	return orderView(o.String("order_id"))
}

// ChangePackageArgs are the arguments of change_package.
type ChangePackageArgs struct {
	// order number
	OrderID string `json:"order_id"`
	// package id
	PackageID string `json:"package_id"`
}

// ChangePackage switches a confirmed order to another package, keeping its
// date, venue and guests.
func ChangePackage(args ChangePackageArgs) (map[string]any, error) {
	o, err := confirmedOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	p, err := getPackage(args.PackageID)
	if err != nil {
		return nil, err
	}
	if p.String("id") == o.String("package_id") {
		return nil, fmt.Errorf("order %s is already %s", o.String("order_id"), p.String("name"))
	}
	if _, err := sdk.Exec("UPDATE orders SET package_id = ? WHERE id = ?", p.String("id"), o.String("order_id")); err != nil {
		return nil, err
	}
	return orderView(o.String("order_id"))
}

// AddDietaryArgs are the arguments of add_dietary.
type AddDietaryArgs struct {
	// order number
	OrderID string `json:"order_id"`
	// vegetarian, vegan or gluten_free
	Option string `json:"option"`
	// meals to add
	Quantity int `json:"quantity"`
}

// AddDietary adds dietary meals of one option (vegetarian, vegan or
// gluten_free) to a confirmed order. It fails when all dietary meals together
// would exceed the guests.
func AddDietary(args AddDietaryArgs) (map[string]any, error) {
	o, err := confirmedOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	opt := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(args.Option)), "-", "_")
	if _, err := sdk.QueryRow("SELECT id FROM dietary_options WHERE id = ?", opt); errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("option %q is not vegetarian, vegan or gluten_free", args.Option)
	} else if err != nil {
		return nil, err
	}
	if args.Quantity < 1 {
		return nil, errors.New("add at least one meal")
	}
	if o.Int("dietary_meals")+int64(args.Quantity) > o.Int("guests") {
		return nil, fmt.Errorf("order %s has %d guests and %d dietary meals already: %d more would exceed the guests", o.String("order_id"), o.Int("guests"), o.Int("dietary_meals"), args.Quantity)
	}
	if _, err := sdk.Exec("INSERT INTO order_dietary (order_id, option_id, quantity) VALUES (?, ?, ?) ON CONFLICT (order_id, option_id) DO UPDATE SET quantity = quantity + excluded.quantity", o.String("order_id"), opt, args.Quantity); err != nil {
		return nil, err
	}
	return orderView(o.String("order_id"))
}

// ApplyDiscountCodeArgs are the arguments of apply_discount_code.
type ApplyDiscountCodeArgs struct {
	// order number
	OrderID string `json:"order_id"`
	// discount code
	Code string `json:"code"`
}

// ApplyDiscountCode applies a client's discount code to one of their
// confirmed orders. It fails when the code is not the order's client's, is
// already used, or the order already has a discount.
func ApplyDiscountCode(args ApplyDiscountCodeArgs) (map[string]any, error) {
	o, err := confirmedOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	c, err := sdk.QueryRow("SELECT code, client_id, percent, used_on_order FROM discount_codes WHERE code = ?", strings.ToUpper(strings.TrimSpace(args.Code)))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no discount code %q", args.Code)
	}
	if err != nil {
		return nil, err
	}
	if c.String("client_id") != o.String("client_id") {
		return nil, fmt.Errorf("code %s does not belong to the client of order %s", c.String("code"), o.String("order_id"))
	}
	if !c.IsNull("used_on_order") {
		return nil, fmt.Errorf("code %s was already used on order %s", c.String("code"), c.String("used_on_order"))
	}
	if o.Float("discount_percent") > 0 {
		return nil, fmt.Errorf("order %s already has a discount", o.String("order_id"))
	}
	if _, err := sdk.Exec("UPDATE orders SET discount_percent = ? WHERE id = ?", c.Float("percent"), o.String("order_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE discount_codes SET used_on_order = ? WHERE code = ?", o.String("order_id"), c.String("code")); err != nil {
		return nil, err
	}
	return orderView(o.String("order_id"))
}

// CancelOrder cancels a confirmed order. Less than 14 days before the event
// it charges 25% of the order's total; earlier it is free.
func CancelOrder(args OrderArgs) (map[string]any, error) {
	o, err := confirmedOrder(args.OrderID)
	if err != nil {
		return nil, err
	}
	days, err := daysUntil(o.String("event_date"))
	if err != nil {
		return nil, err
	}
	charge := 0.0
	if days < freeCancelDays {
		charge = round2(o.Float("total") * cancelShare)
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'cancelled', cancellation_charge = ?, cancelled_at = ? WHERE id = ?", charge, stamp(sdk.Now()), o.String("order_id")); err != nil {
		return nil, err
	}
	return orderView(o.String("order_id"))
}
