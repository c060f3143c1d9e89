package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
)

// PassengerArg is a passenger of a reservation.
type PassengerArg struct {
	// The first name of the passenger, such as 'Noah'.
	FirstName string `json:"first_name"`
	// The last name of the passenger, such as 'Brown'.
	LastName string `json:"last_name"`
	// The date of birth of the passenger in the format 'YYYY-MM-DD', such as '1990-01-01'.
	Dob string `json:"dob"`
}

// PaymentArg is one payment of a booking.
type PaymentArg struct {
	// The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
	PaymentID string `json:"payment_id"`
	// The amount to be paid.
	Amount sdk.Number `json:"amount"`
}

func passengerList(ps []PassengerArg) *jv {
	a := &jv{kind: 'a'}
	for _, p := range ps {
		e := jObject()
		e.set("first_name", jString(p.FirstName))
		e.set("last_name", jString(p.LastName))
		e.set("dob", jString(p.Dob))
		a.vals = append(a.vals, e)
	}
	return a
}

// Book a reservation.
func BookReservation(args BookReservationArgs) (string, error) {
	user, err := load("users", args.UserID)
	if err != nil {
		return "", err
	}
	if user == nil {
		return "", errors.New("user not found")
	}
	// fixed ids, "assume each task makes at most 3 reservations": a fourth
	// booking overwrites HATHAV
	resID := "HATHAT"
	for _, next := range []string{"HATHAU", "HATHAV"} {
		if row, err := loadText("reservations", resID); err != nil {
			return "", err
		} else if row == "" {
			break
		}
		resID = next
	}
	n := int64(len(args.Passengers))
	total := pyInt(0)
	entries := flightEntries(args.Flights)
	for _, f := range entries {
		cost, err := priceFlight(f, n, args.Cabin)
		if err != nil {
			return "", err
		}
		total = total.add(cost)
	}
	if args.Insurance == "yes" {
		total = total.add(pyInt(30 * n))
	}
	total = total.add(pyInt(50).mul(pyInt(args.NonfreeBaggages)))

	methods, err := key(user, "payment_methods")
	if err != nil {
		return "", err
	}
	paid := pyInt(0)
	for _, p := range args.PaymentMethods {
		amount := argNum(p.Amount)
		pm := methods.get(p.PaymentID)
		if pm == nil {
			return "", errors.New("payment method " + p.PaymentID + " not found")
		}
		if source := pm.get("source"); source.isStr("gift_card") || source.isStr("certificate") {
			balance, err := numAt(pm, "amount")
			if err != nil {
				return "", err
			}
			if balance.less(amount) {
				return "", errors.New("not enough balance in payment method " + p.PaymentID)
			}
		}
	}
	for _, p := range args.PaymentMethods {
		paid = paid.add(argNum(p.Amount))
	}
	if !paid.equal(total) {
		return "", errors.New("payment amount does not add up, total price is " + total.str() + ", but paid " + paid.str())
	}

	// Apply the payments. A certificate is removed whole; one listed twice
	// raises on its second occurrence in τ-bench, after the earlier payments
	// were applied and without storing the reservation: that partial state
	// is kept here too, and the KeyError text returned.
	for _, p := range args.PaymentMethods {
		pm := methods.get(p.PaymentID)
		if pm == nil {
			if _, err := save("users", args.UserID, user); err != nil {
				return "", err
			}
			return "Error: " + pyStrRepr(p.PaymentID), nil
		}
		switch source := pm.get("source"); {
		case source.isStr("gift_card"):
			balance, _ := numAt(pm, "amount")
			pm.set("amount", jNum(balance.sub(argNum(p.Amount))))
		case source.isStr("certificate"):
			methods.del(p.PaymentID)
		}
	}

	history := &jv{kind: 'a'}
	for _, p := range args.PaymentMethods {
		history.vals = append(history.vals, paymentEntry(p.PaymentID, argNum(p.Amount)))
	}
	res := jObject()
	res.set("reservation_id", jString(resID))
	res.set("user_id", jString(args.UserID))
	res.set("origin", jString(args.Origin))
	res.set("destination", jString(args.Destination))
	res.set("flight_type", jString(args.FlightType))
	res.set("cabin", jString(args.Cabin))
	res.set("flights", &jv{kind: 'a', vals: entries})
	res.set("passengers", passengerList(args.Passengers))
	res.set("payment_history", history)
	res.set("created_at", jString("2024-05-15T15:00:00"))
	res.set("total_baggages", jNum(pyInt(args.TotalBaggages)))
	res.set("nonfree_baggages", jNum(pyInt(args.NonfreeBaggages)))
	res.set("insurance", jString(args.Insurance))

	var text string
	if resID == "HATHAV" {
		if old, err := loadText("reservations", resID); err != nil {
			return "", err
		} else if old != "" { // overwritten in place
			text, err = save("reservations", resID, res)
			if err != nil {
				return "", err
			}
		}
	}
	if text == "" {
		if text, err = insert("reservations", resID, res); err != nil {
			return "", err
		}
	}
	reservations, err := key(user, "reservations")
	if err != nil {
		return "", err
	}
	reservations.vals = append(reservations.vals, jString(resID))
	if _, err := save("users", args.UserID, user); err != nil {
		return "", err
	}
	return text, nil
}

type BookReservationArgs struct {
	// The ID of the user to book the reservation, such as 'sara_doe_496'.
	UserID string `json:"user_id"`
	// The IATA code for the origin city, such as 'SFO'.
	Origin string `json:"origin"`
	// The IATA code for the destination city, such as 'JFK'.
	Destination string `json:"destination"`
	// The trip type: 'one_way' or 'round_trip'.
	FlightType string `json:"flight_type"`
	// The cabin class: 'basic_economy', 'economy' or 'business'.
	Cabin string `json:"cabin"`
	// An array of objects containing details about each piece of flight.
	Flights []FlightArg `json:"flights"`
	// An array of objects containing details about each passenger.
	Passengers []PassengerArg `json:"passengers"`
	// An array of objects containing details about each payment method.
	PaymentMethods []PaymentArg `json:"payment_methods"`
	// The total number of baggage items included in the reservation.
	TotalBaggages int64 `json:"total_baggages"`
	// The number of non-free baggage items included in the reservation.
	NonfreeBaggages int64 `json:"nonfree_baggages"`
	// Travel insurance: 'yes' or 'no'.
	Insurance string `json:"insurance"`
}

// Cancel the whole reservation.
func CancelReservation(args CancelReservationArgs) (string, error) {
	res, err := load("reservations", args.ReservationID)
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", errors.New("reservation not found")
	}
	history, err := key(res, "payment_history")
	if err != nil {
		return "", err
	}
	// every entry, earlier refunds included, negated and appended; balances
	// and certificates are not credited back
	var refunds []*jv
	for _, p := range history.vals {
		id, err := key(p, "payment_id")
		if err != nil {
			return "", err
		}
		amount, err := numAt(p, "amount")
		if err != nil {
			return "", err
		}
		r := jObject()
		r.set("payment_id", id)
		r.set("amount", jNum(amount.neg()))
		refunds = append(refunds, r)
	}
	history.vals = append(history.vals, refunds...)
	res.set("status", jString("cancelled"))
	return save("reservations", args.ReservationID, res)
}

type CancelReservationArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
}

// Send a certificate to a user. Be careful!
func SendCertificate(args SendCertificateArgs) (sdk.RawJSON, error) {
	user, err := load("users", args.UserID)
	if err != nil {
		return nil, err
	}
	if user == nil {
		return nil, errors.New("user not found")
	}
	methods, err := key(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	// fixed ids, "assume at most 3 cases per task"
	for _, id := range []string{"certificate_3221322", "certificate_3221323", "certificate_3221324"} {
		if methods.get(id) != nil {
			continue
		}
		amount := argNum(args.Amount)
		c := jObject()
		c.set("source", jString("certificate"))
		c.set("amount", jNum(amount))
		c.set("id", jString(id))
		methods.set(id, c)
		if _, err := save("users", args.UserID, user); err != nil {
			return nil, err
		}
		return sdk.RawJSON("Certificate " + id + " added to user " + args.UserID + " with amount " + amount.str() + "."), nil
	}
	return sdk.RawJSON("null"), nil // τ-bench's tool falls through and returns None
}

type SendCertificateArgs struct {
	// The ID of the user to book the reservation, such as 'sara_doe_496'.
	UserID string `json:"user_id"`
	// Certificate amount to send.
	Amount sdk.Number `json:"amount"`
}

// Update the baggage information of a reservation.
func UpdateReservationBaggages(args UpdateReservationBaggagesArgs) (string, error) {
	res, err := load("reservations", args.ReservationID)
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", errors.New("reservation not found")
	}
	current, err := numAt(res, "nonfree_baggages")
	if err != nil {
		return "", err
	}
	extra := pyInt(args.NonfreeBaggages).sub(current)
	if !pyInt(0).less(extra) { // max(0, x) is 0 unless x > 0
		extra = pyInt(0)
	}
	fee := pyInt(50).mul(extra)
	pm, user, uid, err := ownerPaymentMethod(res, args.PaymentID)
	if err != nil {
		return "", err
	}
	if err := checkUpdatePayment(pm, fee); err != nil {
		return "", err
	}
	res.set("total_baggages", jNum(pyInt(args.TotalBaggages)))
	res.set("nonfree_baggages", jNum(pyInt(args.NonfreeBaggages)))
	if pm.get("source").isStr("gift_card") { // even when the fee is 0
		amount, _ := numAt(pm, "amount")
		pm.set("amount", jNum(amount.sub(fee)))
		if _, err := save("users", uid, user); err != nil {
			return "", err
		}
	}
	if !fee.isZero() {
		res.get("payment_history").vals = append(res.get("payment_history").vals, paymentEntry(args.PaymentID, fee))
	}
	return save("reservations", args.ReservationID, res)
}

type UpdateReservationBaggagesArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
	// The updated total number of baggage items included in the reservation.
	TotalBaggages int64 `json:"total_baggages"`
	// The updated number of non-free baggage items included in the reservation.
	NonfreeBaggages int64 `json:"nonfree_baggages"`
	// The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
	PaymentID string `json:"payment_id"`
}

// Update the passenger information of a reservation.
func UpdateReservationPassengers(args UpdateReservationPassengersArgs) (string, error) {
	res, err := load("reservations", args.ReservationID)
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", errors.New("reservation not found")
	}
	current, err := key(res, "passengers")
	if err != nil {
		return "", err
	}
	if len(args.Passengers) != len(current.vals) {
		return "", errors.New("number of passengers does not match")
	}
	res.set("passengers", passengerList(args.Passengers))
	return save("reservations", args.ReservationID, res)
}

type UpdateReservationPassengersArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
	// An array of objects containing details about each passenger.
	Passengers []PassengerArg `json:"passengers"`
}
