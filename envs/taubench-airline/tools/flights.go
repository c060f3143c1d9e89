package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
)

// FlightArg is one flight of an itinerary.
type FlightArg struct {
	// Flight number, such as 'HAT001'.
	FlightNumber string `json:"flight_number"`
	// The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
	Date string `json:"date"`
}

// flightEntries is the itinerary as the dicts τ-bench deep-copies.
func flightEntries(flights []FlightArg) []*jv {
	out := make([]*jv, len(flights))
	for i, f := range flights {
		e := jObject()
		e.set("flight_number", jString(f.FlightNumber))
		e.set("date", jString(f.Date))
		out[i] = e
	}
	return out
}

// priceFlight runs τ-bench's flight checks on an itinerary entry for n seats
// in cabin, in order, with their error strings; then sets the entry's price,
// origin and destination and returns price × n.
func priceFlight(entry *jv, n int64, cabin string) (pyNum, error) {
	number, date := entry.get("flight_number").text(), entry.get("date").text()
	row, err := sdk.QueryRow(`SELECT f.origin AS origin, f.destination AS destination, d.status AS status, d.data AS day
		FROM flights f LEFT JOIN flight_dates d ON d.flight = f.id AND d.date = ? WHERE f.id = ?`, date, number)
	if err == sdk.ErrNoRows {
		return pyNum{}, errors.New("flight " + number + " not found")
	}
	if err != nil {
		return pyNum{}, err
	}
	if row.IsNull("day") {
		return pyNum{}, errors.New("flight " + number + " not found on date " + date)
	}
	if row.Value("status") != "available" {
		return pyNum{}, errors.New("flight " + number + " not available on date " + date)
	}
	day, err := parseJV(row.String("day"))
	if err != nil {
		return pyNum{}, err
	}
	seats, err := key(day, "available_seats")
	if err != nil {
		return pyNum{}, err
	}
	free, err := numAt(seats, cabin)
	if err != nil {
		return pyNum{}, err
	}
	if free.less(pyInt(n)) {
		return pyNum{}, errors.New("not enough seats on flight " + number)
	}
	prices, err := key(day, "prices")
	if err != nil {
		return pyNum{}, err
	}
	price, err := key(prices, cabin)
	if err != nil {
		return pyNum{}, err
	}
	p, ok := price.num()
	if !ok {
		return pyNum{}, errors.New("price of flight " + number + " is not a number")
	}
	entry.set("price", price)
	entry.set("origin", jString(row.String("origin")))
	entry.set("destination", jString(row.String("destination")))
	return p.mul(pyInt(n)), nil
}

// Update the flight information of a reservation.
func UpdateReservationFlights(args UpdateReservationFlightsArgs) (string, error) {
	res, err := load("reservations", args.ReservationID)
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
	n := pyInt(int64(len(passengers.vals)))
	current, err := key(res, "flights")
	if err != nil {
		return "", err
	}
	sameCabin := res.get("cabin").isStr(args.Cabin)
	total := pyInt(0)
	entries := flightEntries(args.Flights)
	for _, f := range entries {
		// a segment kept in the same cabin keeps its price and is not checked
		if kept := keptSegment(current, f, sameCabin); kept != nil {
			price, err := numAt(kept, "price")
			if err != nil {
				return "", err
			}
			total = total.add(price.mul(n))
			f.set("price", kept.get("price"))
			f.set("origin", kept.get("origin"))
			f.set("destination", kept.get("destination"))
			continue
		}
		cost, err := priceFlight(f, n.i, args.Cabin)
		if err != nil {
			return "", err
		}
		total = total.add(cost)
	}
	paid := pyInt(0)
	for _, e := range current.vals {
		price, err := numAt(e, "price")
		if err != nil {
			return "", err
		}
		paid = paid.add(price)
	}
	total = total.sub(paid.mul(n))
	pm, user, uid, err := ownerPaymentMethod(res, args.PaymentID)
	if err != nil {
		return "", err
	}
	if err := checkUpdatePayment(pm, total); err != nil {
		return "", err
	}
	if pm.get("source").isStr("gift_card") {
		amount, _ := numAt(pm, "amount")
		pm.set("amount", jNum(amount.sub(total)))
		if _, err := save("users", uid, user); err != nil {
			return "", err
		}
	}
	res.set("flights", &jv{kind: 'a', vals: entries})
	if !total.isZero() {
		res.get("payment_history").vals = append(res.get("payment_history").vals, paymentEntry(args.PaymentID, total))
	}
	return save("reservations", args.ReservationID, res)
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
func keptSegment(current, f *jv, sameCabin bool) *jv {
	if !sameCabin {
		return nil
	}
	number, date := f.get("flight_number").text(), f.get("date").text()
	for _, e := range current.vals {
		if e.get("flight_number").isStr(number) && e.get("date").isStr(date) {
			return e
		}
	}
	return nil
}

// paymentEntry is a payment_history entry {"payment_id", "amount"}.
func paymentEntry(paymentID string, amount pyNum) *jv {
	e := jObject()
	e.set("payment_id", jString(paymentID))
	e.set("amount", jNum(amount))
	return e
}
