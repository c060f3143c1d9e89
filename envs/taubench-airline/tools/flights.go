package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// FlightArg is one flight of an itinerary.
type FlightArg struct {
	// Flight number, such as 'HAT001'.
	FlightNumber string `json:"flight_number"`
	// The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
	Date string `json:"date"`
}

// flightEntries is the itinerary as the dicts τ-bench deep-copies.
func flightEntries(flights []FlightArg) []*py.Value {
	out := make([]*py.Value, len(flights))
	for i, f := range flights {
		e := py.Object()
		e.Set("flight_number", py.Str(f.FlightNumber))
		e.Set("date", py.Str(f.Date))
		out[i] = e
	}
	return out
}

// priceFlight runs τ-bench's flight checks on an itinerary entry for n seats
// in cabin, in order, with their error strings; then sets the entry's price,
// origin and destination and returns price × n.
func priceFlight(entry *py.Value, n int64, cabin string) (py.Num, error) {
	number, date := entry.Get("flight_number").Text(), entry.Get("date").Text()
	row, err := sdk.QueryRow(`SELECT f.origin AS origin, f.destination AS destination, d.status AS status, d.data AS day
		FROM flights f LEFT JOIN flight_dates d ON d.flight = f.id AND d.date = ? WHERE f.id = ?`, date, number)
	if err == sdk.ErrNoRows {
		return py.Num{}, errors.New("flight " + number + " not found")
	}
	if err != nil {
		return py.Num{}, err
	}
	if row.IsNull("day") {
		return py.Num{}, errors.New("flight " + number + " not found on date " + date)
	}
	if row.Value("status") != "available" {
		return py.Num{}, errors.New("flight " + number + " not available on date " + date)
	}
	day, err := py.Parse(row.String("day"))
	if err != nil {
		return py.Num{}, err
	}
	seats, err := key(day, "available_seats")
	if err != nil {
		return py.Num{}, err
	}
	free, err := numAt(seats, cabin)
	if err != nil {
		return py.Num{}, err
	}
	if free.Less(py.Int(n)) {
		return py.Num{}, errors.New("not enough seats on flight " + number)
	}
	prices, err := key(day, "prices")
	if err != nil {
		return py.Num{}, err
	}
	price, err := key(prices, cabin)
	if err != nil {
		return py.Num{}, err
	}
	p, ok := price.Num()
	if !ok {
		return py.Num{}, errors.New("price of flight " + number + " is not a number")
	}
	entry.Set("price", price)
	entry.Set("origin", py.Str(row.String("origin")))
	entry.Set("destination", py.Str(row.String("destination")))
	return p.Mul(py.Int(n)), nil
}

// Update the flight information of a reservation.
func UpdateReservationFlights(args UpdateReservationFlightsArgs) (string, error) {
	res, err := py.LoadRecord("reservations", args.ReservationID)
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", errors.New("reservation not found")
	}
	passengers, err := key(res, "passengers")
	if err != nil {
		return "", err
	}
	seats := int64(passengers.Len())
	n := py.Int(seats)
	current, err := key(res, "flights")
	if err != nil {
		return "", err
	}
	sameCabin := res.Get("cabin").IsStr(args.Cabin)
	total := py.Int(0)
	entries := flightEntries(args.Flights)
	for _, f := range entries {
		// a segment kept in the same cabin keeps its price and is not checked
		if kept := keptSegment(current, f, sameCabin); kept != nil {
			price, err := numAt(kept, "price")
			if err != nil {
				return "", err
			}
			total = total.Add(price.Mul(n))
			f.Set("price", kept.Get("price"))
			f.Set("origin", kept.Get("origin"))
			f.Set("destination", kept.Get("destination"))
			continue
		}
		cost, err := priceFlight(f, seats, args.Cabin)
		if err != nil {
			return "", err
		}
		total = total.Add(cost)
	}
	paid := py.Int(0)
	for _, e := range current.Items() {
		price, err := numAt(e, "price")
		if err != nil {
			return "", err
		}
		paid = paid.Add(price)
	}
	total = total.Sub(paid.Mul(n))
	pm, user, uid, err := ownerPaymentMethod(res, args.PaymentID)
	if err != nil {
		return "", err
	}
	if err := checkUpdatePayment(pm, total); err != nil {
		return "", err
	}
	if pm.Get("source").IsStr("gift_card") {
		amount, _ := numAt(pm, "amount")
		pm.Set("amount", py.Number(amount.Sub(total)))
		if _, err := py.SaveRecord("users", uid, user); err != nil {
			return "", err
		}
	}
	res.Set("flights", py.List(entries...))
	if !total.IsZero() {
		res.Get("payment_history").Append(paymentEntry(args.PaymentID, total))
	}
	return py.SaveRecord("reservations", args.ReservationID, res)
}

type UpdateReservationFlightsArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
	// The cabin class: 'basic_economy', 'economy' or 'business'.
	Cabin string `json:"cabin"`
	// An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.
	Flights []FlightArg `json:"flights"`
	// The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
	PaymentID string `json:"payment_id"`
}

// keptSegment is the first of the reservation's current flights with f's
// flight number and date, when the cabin is unchanged; nil otherwise.
func keptSegment(current, f *py.Value, sameCabin bool) *py.Value {
	if !sameCabin {
		return nil
	}
	number, date := f.Get("flight_number").Text(), f.Get("date").Text()
	for _, e := range current.Items() {
		if e.Get("flight_number").IsStr(number) && e.Get("date").IsStr(date) {
			return e
		}
	}
	return nil
}

// paymentEntry is a payment_history entry {"payment_id", "amount"}.
func paymentEntry(paymentID string, amount py.Num) *py.Value {
	e := py.Object()
	e.Set("payment_id", py.Str(paymentID))
	e.Set("amount", py.Number(amount))
	return e
}
