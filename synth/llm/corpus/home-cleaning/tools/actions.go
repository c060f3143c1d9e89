package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookVisitArgs are the arguments of book_visit.
type BookVisitArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// standard, deep or move_out
	Service string `json:"service"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// cleaner id from list_free_cleaners
	CleanerID string `json:"cleaner_id"`
}

// BookVisit books a visit at 09:00 on a date with a cleaner, priced for the
// customer's bedrooms. It fails when the cleaner already has a visit that day
// or the date is not after today. Returns the new visit.
func BookVisit(args BookVisitArgs) (sdk.Row, error) {
	c, err := getCustomer(args.CustomerID)
	if err != nil {
		return sdk.Row{}, err
	}
	price, err := priceFor(args.Service, c.Int("bedrooms"))
	if err != nil {
		return sdk.Row{}, err
	}
	day, err := visitDay(args.Date)
	if err != nil {
		return sdk.Row{}, err
	}
	cl, err := getCleaner(args.CleanerID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := free(cl, day, ""); err != nil {
		return sdk.Row{}, err
	}
	id, err := nextVisitID()
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO visits (id, customer_id, cleaner_id, service_id, start, status, price, credit_applied, cancel_fee) VALUES (?, ?, ?, ?, ?, 'booked', ?, 0, 0)",
		id, c.String("id"), cl.String("id"), strings.TrimSpace(args.Service), day+startHour, price); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(id)
}

// AddExtraArgs are the arguments of add_extra.
type AddExtraArgs struct {
	// visit id
	VisitID string `json:"visit_id"`
	// oven, windows or fridge
	Extra string `json:"extra"`
}

// AddExtra adds an extra (oven, windows or fridge) to a booked visit at its
// listed price. It fails when the visit is not booked or already has it.
func AddExtra(args AddExtraArgs) (sdk.Row, error) {
	v, err := bookedVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	e, err := sdk.QueryRow("SELECT id, price FROM extras WHERE id = ?", strings.TrimSpace(args.Extra))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no extra %q (oven, windows or fridge)", args.Extra)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow("SELECT visit_id FROM visit_extras WHERE visit_id = ? AND extra_id = ?", v.String("id"), e.String("id")); err == nil {
		return sdk.Row{}, fmt.Errorf("visit %s already has the %s extra", v.String("id"), e.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO visit_extras (visit_id, extra_id, price) VALUES (?, ?, ?)", v.String("id"), e.String("id"), e.Float("price")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// ChangeServiceArgs are the arguments of change_service.
type ChangeServiceArgs struct {
	// visit id
	VisitID string `json:"visit_id"`
	// standard, deep or move_out
	Service string `json:"service"`
}

// ChangeService changes a booked visit's service, keeping its day and
// cleaner, and reprices it for the customer's bedrooms.
func ChangeService(args ChangeServiceArgs) (sdk.Row, error) {
	v, err := bookedVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	c, err := getCustomer(v.String("customer_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	price, err := priceFor(args.Service, c.Int("bedrooms"))
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE visits SET service_id = ?, price = ? WHERE id = ?", strings.TrimSpace(args.Service), price, v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// RescheduleVisitArgs are the arguments of reschedule_visit.
type RescheduleVisitArgs struct {
	// visit id
	VisitID string `json:"visit_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// cleaner id
	CleanerID string `json:"cleaner_id"`
}

// RescheduleVisit moves a booked visit to 09:00 on another date with a
// cleaner free that day. It fails when the visit starts less than 24 hours
// from now or the cleaner is not free.
func RescheduleVisit(args RescheduleVisitArgs) (sdk.Row, error) {
	v, err := bookedVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	h, err := hoursUntil(v)
	if err != nil {
		return sdk.Row{}, err
	}
	if h < 24 {
		return sdk.Row{}, fmt.Errorf("visit %s starts in less than 24 hours and cannot be rescheduled", v.String("id"))
	}
	day, err := visitDay(args.Date)
	if err != nil {
		return sdk.Row{}, err
	}
	cl, err := getCleaner(args.CleanerID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := free(cl, day, v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE visits SET start = ?, cleaner_id = ? WHERE id = ?", day+startHour, cl.String("id"), v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// VisitArgs name a visit.
type VisitArgs struct {
	// visit id
	VisitID string `json:"visit_id"`
}

// CancelVisit cancels a booked visit. Less than 24 hours before its start it
// charges half of its total (price plus extras) as a cancellation fee.
// Returns the visit with its fee.
func CancelVisit(args VisitArgs) (sdk.Row, error) {
	v, err := bookedVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	h, err := hoursUntil(v)
	if err != nil {
		return sdk.Row{}, err
	}
	fee := 0.0
	if h < 24 {
		fee = round2(v.Float("total") / 2)
	}
	if _, err := sdk.Exec("UPDATE visits SET status = 'cancelled', cancel_fee = ? WHERE id = ?", fee, v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// ApplyLoyaltyCredit applies the customer's loyalty credit to a booked visit,
// up to the visit's total, and lowers the credit by that amount. It fails
// when the customer has no credit or the visit is not booked.
func ApplyLoyaltyCredit(args VisitArgs) (sdk.Row, error) {
	v, err := bookedVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	c, err := getCustomer(v.String("customer_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	credit := c.Float("loyalty_credit")
	if credit <= 0 {
		return sdk.Row{}, fmt.Errorf("%s has no loyalty credit", c.String("name"))
	}
	room := v.Float("total") - v.Float("credit_applied")
	if room <= 0 {
		return sdk.Row{}, fmt.Errorf("visit %s is already fully paid by credit", v.String("id"))
	}
	amount := min(credit, room)
	if _, err := sdk.Exec("UPDATE visits SET credit_applied = ? WHERE id = ?", round2(v.Float("credit_applied")+amount), v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE customers SET loyalty_credit = ? WHERE id = ?", round2(credit-amount), c.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// RateVisitArgs are the arguments of rate_visit.
type RateVisitArgs struct {
	// visit id
	VisitID string `json:"visit_id"`
	// 1 to 5
	Rating int `json:"rating"`
}

// RateVisit rates a completed visit from 1 to 5. It fails when the visit is
// not completed or already rated.
func RateVisit(args RateVisitArgs) (sdk.Row, error) {
	v, err := getVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	if v.String("status") != "completed" {
		return sdk.Row{}, fmt.Errorf("visit %s is %s: only completed visits can be rated", v.String("id"), v.String("status"))
	}
	if !v.IsNull("rating") {
		return sdk.Row{}, fmt.Errorf("visit %s is already rated %d", v.String("id"), v.Int("rating"))
	}
	if args.Rating < 1 || args.Rating > 5 {
		return sdk.Row{}, errors.New("a rating is from 1 to 5")
	}
	if _, err := sdk.Exec("UPDATE visits SET rating = ?, rated_at = ? WHERE id = ?", args.Rating, stamp(sdk.Now()), v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(v.String("id"))
}

// BookRecleanArgs are the arguments of book_reclean.
type BookRecleanArgs struct {
	// the rated visit's id
	VisitID string `json:"visit_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
}

// BookReclean books the free re-clean of a visit rated 2 or less, within 48
// hours of its rating and once per visit: a visit of the same service at
// 09:00 on the date, price 0, with the same cleaner when free that day, else
// the first free cleaner by name.
func BookReclean(args BookRecleanArgs) (sdk.Row, error) {
	v, err := getVisit(args.VisitID)
	if err != nil {
		return sdk.Row{}, err
	}
	if v.IsNull("rating") || v.Int("rating") > 2 {
		return sdk.Row{}, fmt.Errorf("visit %s is not rated 2 or less: no free re-clean", v.String("id"))
	}
	rated, err := parseStamp(v.String("rated_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if sdk.Now().Sub(rated).Hours() > 48 {
		return sdk.Row{}, fmt.Errorf("visit %s was rated more than 48 hours ago: the free re-clean has expired", v.String("id"))
	}
	if _, err := sdk.QueryRow("SELECT id FROM visits WHERE reclean_of = ? AND status <> 'cancelled'", v.String("id")); err == nil {
		return sdk.Row{}, fmt.Errorf("visit %s already has its re-clean", v.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	day, err := visitDay(args.Date)
	if err != nil {
		return sdk.Row{}, err
	}
	cl, err := getCleaner(v.String("cleaner_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if free(cl, day, "") != nil {
		cl, err = sdk.QueryRow("SELECT id, name FROM cleaners WHERE id NOT IN (SELECT cleaner_id FROM visits WHERE status = 'booked' AND substr(start, 1, 10) = ?) ORDER BY name LIMIT 1", day)
		if errors.Is(err, sdk.ErrNoRows) {
			return sdk.Row{}, fmt.Errorf("no cleaner is free on %s", day)
		}
		if err != nil {
			return sdk.Row{}, err
		}
	}
	id, err := nextVisitID()
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO visits (id, customer_id, cleaner_id, service_id, start, status, price, credit_applied, cancel_fee, reclean_of) VALUES (?, ?, ?, ?, ?, 'booked', 0, 0, 0, ?)",
		id, v.String("customer_id"), cl.String("id"), v.String("service"), day+startHour, v.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getVisit(id)
}
