package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// VerifyCustomerArgs are the arguments of verify_customer.
type VerifyCustomerArgs struct {
	// The customer's email.
	Email string `json:"email"`
	// Driving-licence number such as DL-448120.
	LicenceNo string `json:"licence_no"`
}

// VerifyCustomer verifies a customer by email and driving-licence number.
func VerifyCustomer(args VerifyCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS customer_id, name, birth_date FROM customers WHERE lower(email) = ? AND upper(licence_no) = ?`,
		strings.ToLower(strings.TrimSpace(args.Email)), strings.ToUpper(strings.TrimSpace(args.LicenceNo)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no customer has that email and driving-licence number together")
	}
	return row, err
}

func customer(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, birth_date FROM customers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no customer has the id %q", id)
	}
	return row, err
}

// CustomerArgs name a verified customer.
type CustomerArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
}

// ListReservations lists the customer's reservations.
func ListReservations(args CustomerArgs) (sdk.Rows, error) {
	if _, err := customer(args.CustomerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS reservation_id, c.name AS car_class, pb.name AS pickup_branch, rb.name AS return_branch, r.pickup_date, r.return_date, r.status
		FROM reservations r JOIN car_classes c ON c.id = r.class_id JOIN branches pb ON pb.id = r.pickup_branch_id JOIN branches rb ON rb.id = r.return_branch_id
		WHERE r.customer_id = ? ORDER BY r.pickup_date, r.id`, args.CustomerID)
}

// ReservationArgs name one reservation.
type ReservationArgs struct {
	// The customer id verify_customer returned.
	CustomerID string `json:"customer_id"`
	// Reservation id such as R-1002.
	ReservationID string `json:"reservation_id"`
}

func reservation(customerID, id string) (sdk.Row, error) {
	if _, err := customer(customerID); err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT id, class_id, pickup_branch_id, return_branch_id, pickup_date, return_date, status FROM reservations WHERE id = ? AND customer_id = ?`,
		strings.ToUpper(strings.TrimSpace(id)), customerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("reservation %q is not one of this customer's reservations", id)
	}
	return r, err
}

func days(from, to string) (int, error) {
	a, err := time.Parse("2006-01-02", from)
	if err != nil {
		return 0, fmt.Errorf("bad date %q: use YYYY-MM-DD", from)
	}
	b, err := time.Parse("2006-01-02", to)
	if err != nil {
		return 0, fmt.Errorf("bad date %q: use YYYY-MM-DD", to)
	}
	return int(b.Sub(a).Hours() / 24), nil
}

// price computes a reservation's price breakdown.
func price(id string) (map[string]any, error) {
	r, err := sdk.QueryRow(`SELECT r.pickup_date, r.return_date, r.pickup_branch_id, r.return_branch_id, c.daily_rate, rb.one_way_fee
		FROM reservations r JOIN car_classes c ON c.id = r.class_id JOIN branches rb ON rb.id = r.return_branch_id WHERE r.id = ?`, id)
	if err != nil {
		return nil, err
	}
	n, err := days(r.String("pickup_date"), r.String("return_date"))
	if err != nil {
		return nil, err
	}
	extras, err := sdk.Query(`SELECT e.name, e.daily_price FROM reservation_extras x JOIN extras e ON e.id = x.extra_id WHERE x.reservation_id = ? ORDER BY x.id`, id)
	if err != nil {
		return nil, err
	}
	car := float64(n) * r.Float("daily_rate")
	extrasCost := 0.0
	var names []string
	for _, e := range extras.All() {
		extrasCost += float64(n) * e.Float("daily_price")
		names = append(names, e.String("name"))
	}
	fee := 0.0
	if r.String("pickup_branch_id") != r.String("return_branch_id") {
		fee = r.Float("one_way_fee")
	}
	return map[string]any{"days": n, "car_cost": car, "extras": names, "extras_cost": extrasCost, "one_way_fee": fee, "total": car + extrasCost + fee}, nil
}

// GetReservation returns one reservation with its extras and price.
func GetReservation(args ReservationArgs) (map[string]any, error) {
	r, err := reservation(args.CustomerID, args.ReservationID)
	if err != nil {
		return nil, err
	}
	out, err := price(r.String("id"))
	if err != nil {
		return nil, err
	}
	info, err := sdk.QueryRow(`SELECT c.name AS car_class, pb.name AS pickup_branch, rb.name AS return_branch FROM reservations r JOIN car_classes c ON c.id = r.class_id
		JOIN branches pb ON pb.id = r.pickup_branch_id JOIN branches rb ON rb.id = r.return_branch_id WHERE r.id = ?`, r.String("id"))
	if err != nil {
		return nil, err
	}
	out["reservation_id"] = r.String("id")
	out["car_class"] = info.String("car_class")
	out["pickup_branch"] = info.String("pickup_branch")
	out["return_branch"] = info.String("return_branch")
	out["pickup_date"] = r.String("pickup_date")
	out["return_date"] = r.String("return_date")
	out["status"] = r.String("status")
	return out, nil
}

// ListCarClasses lists the car classes and the extras.
func ListCarClasses() (map[string]any, error) {
	classes, err := sdk.Query(`SELECT name, daily_rate, min_age FROM car_classes ORDER BY daily_rate`)
	if err != nil {
		return nil, err
	}
	extras, err := sdk.Query(`SELECT name, daily_price FROM extras ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return map[string]any{"car_classes": classes, "extras": extras}, nil
}

// ListBranches lists the branches and their one-way fees.
func ListBranches() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, one_way_fee FROM branches ORDER BY name`)
}
