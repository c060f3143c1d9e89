package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func branchID(name string) (string, error) {
	b, err := sdk.QueryRow(`SELECT id FROM branches WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no branch is called %q", name)
	}
	if err != nil {
		return "", err
	}
	return b.String("id"), nil
}

// ageOn is a person's age in whole years on a date.
func ageOn(birth, date string) (int, error) {
	b, err := time.Parse("2006-01-02", birth)
	if err != nil {
		return 0, fmt.Errorf("bad birth date %q", birth)
	}
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		return 0, fmt.Errorf("bad date %q: use YYYY-MM-DD", date)
	}
	age := d.Year() - b.Year()
	if d.Month() < b.Month() || (d.Month() == b.Month() && d.Day() < b.Day()) {
		age--
	}
	return age, nil
}

// BookCarArgs are the arguments of book_car.
type BookCarArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Class name such as Compact or SUV.
	CarClass string `json:"car_class"`
	// Pickup branch name such as Airport.
	PickupBranch string `json:"pickup_branch"`
	// Return branch name.
	ReturnBranch string `json:"return_branch"`
	// Pickup date YYYY-MM-DD.
	PickupDate string `json:"pickup_date"`
	// Return date YYYY-MM-DD.
	ReturnDate string `json:"return_date"`
}

// BookCar books a car and returns the reservation with its price.
func BookCar(args BookCarArgs) (map[string]any, error) {
	c, err := customer(args.CustomerID)
	if err != nil {
		return nil, err
	}
	class, err := sdk.QueryRow(`SELECT id, name, min_age FROM car_classes WHERE lower(name) = ? OR id = ?`,
		strings.ToLower(strings.TrimSpace(args.CarClass)), strings.ToLower(strings.TrimSpace(args.CarClass)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no car class is called %q", args.CarClass)
	}
	if err != nil {
		return nil, err
	}
	pickup, err := branchID(args.PickupBranch)
	if err != nil {
		return nil, err
	}
	ret, err := branchID(args.ReturnBranch)
	if err != nil {
		return nil, err
	}
	pd, rd := strings.TrimSpace(args.PickupDate), strings.TrimSpace(args.ReturnDate)
	n, err := days(pd, rd)
	if err != nil {
		return nil, err
	}
	if pd <= today() {
		return nil, fmt.Errorf("the pickup date must be after today (%s)", today())
	}
	if n < 1 {
		return nil, fmt.Errorf("the return date must be after the pickup date")
	}
	age, err := ageOn(c.String("birth_date"), pd)
	if err != nil {
		return nil, err
	}
	if int64(age) < class.Int("min_age") {
		return nil, fmt.Errorf("drivers must be at least %d to rent the %s class; this customer will be %d on %s", class.Int("min_age"), class.String("name"), age, pd)
	}
	rows, err := sdk.Query(`SELECT id FROM reservations WHERE id LIKE 'R-%'`)
	if err != nil {
		return nil, err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "R-")); err == nil && k > max {
			max = k
		}
	}
	id := fmt.Sprintf("R-%d", max+1)
	if _, err := sdk.Exec(`INSERT INTO reservations (id, customer_id, class_id, pickup_branch_id, return_branch_id, pickup_date, return_date, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'booked', ?)`, id, args.CustomerID, class.String("id"), pickup, ret, pd, rd, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	out, err := price(id)
	if err != nil {
		return nil, err
	}
	out["reservation_id"] = id
	out["car_class"] = class.String("name")
	out["status"] = "booked"
	return out, nil
}

// AddExtraArgs are the arguments of add_extra.
type AddExtraArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Reservation id.
	ReservationID string `json:"reservation_id"`
	// Child seat or Extra driver.
	Extra string `json:"extra"`
}

// AddExtra adds an extra to a booked reservation.
func AddExtra(args AddExtraArgs) (map[string]any, error) {
	r, err := reservation(args.CustomerID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is %s, not booked", r.String("id"), r.String("status"))
	}
	key := strings.ToLower(strings.TrimSpace(args.Extra))
	e, err := sdk.QueryRow(`SELECT id, name FROM extras WHERE lower(name) = ? OR id = ? OR id = ?`, key, key, strings.ReplaceAll(key, " ", "-"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no extra is called %q (Child seat or Extra driver)", args.Extra)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM reservation_extras WHERE reservation_id = ? AND extra_id = ?`, r.String("id"), e.String("id")); err == nil {
		return nil, fmt.Errorf("reservation %s already has a %s", r.String("id"), strings.ToLower(e.String("name")))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO reservation_extras (reservation_id, extra_id, added_at) VALUES (?, ?, ?)`, r.String("id"), e.String("id"), sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	out, err := price(r.String("id"))
	if err != nil {
		return nil, err
	}
	out["reservation_id"] = r.String("id")
	return out, nil
}

// ChangeReturnBranchArgs are the arguments of change_return_branch.
type ChangeReturnBranchArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Reservation id.
	ReservationID string `json:"reservation_id"`
	// The new return branch's name.
	Branch string `json:"branch"`
}

// ChangeReturnBranch changes where a booked reservation's car is returned.
func ChangeReturnBranch(args ChangeReturnBranchArgs) (map[string]any, error) {
	r, err := reservation(args.CustomerID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is %s, not booked", r.String("id"), r.String("status"))
	}
	b, err := branchID(args.Branch)
	if err != nil {
		return nil, err
	}
	if b == r.String("return_branch_id") {
		return nil, fmt.Errorf("reservation %s already returns to %s", r.String("id"), args.Branch)
	}
	if _, err := sdk.Exec(`UPDATE reservations SET return_branch_id = ? WHERE id = ?`, b, r.String("id")); err != nil {
		return nil, err
	}
	out, err := price(r.String("id"))
	if err != nil {
		return nil, err
	}
	out["reservation_id"] = r.String("id")
	out["return_branch"] = strings.TrimSpace(args.Branch)
	return out, nil
}

// CancelReservation cancels a booked reservation before its pickup date.
func CancelReservation(args ReservationArgs) (map[string]any, error) {
	r, err := reservation(args.CustomerID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	if r.String("status") != "booked" {
		return nil, fmt.Errorf("reservation %s is %s, not booked", r.String("id"), r.String("status"))
	}
	if r.String("pickup_date") <= today() {
		return nil, fmt.Errorf("reservation %s is picked up on %s and can no longer be cancelled", r.String("id"), r.String("pickup_date"))
	}
	if _, err := sdk.Exec(`UPDATE reservations SET status = 'cancelled' WHERE id = ?`, r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"reservation_id": r.String("id"), "status": "cancelled"}, nil
}
