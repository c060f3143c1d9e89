package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
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

func passengerList(ps []PassengerArg) *py.Value {
	a := py.List()
	for _, p := range ps {
		e := py.Object()
		e.Set("first_name", py.Str(p.FirstName))
		e.Set("last_name", py.Str(p.LastName))
		e.Set("dob", py.Str(p.Dob))
		a.Append(e)
	}
	return a
}

// Book a reservation.
func BookReservation(args BookReservationArgs) (string, error) {
	user, err := py.LoadRecord("users", args.UserID)
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
		if row, err := py.RecordText("reservations", resID); err != nil {
			return "", err
		} else if row == "" {
			break
		}
		resID = next
	}
	n := int64(len(args.Passengers))
	total := py.Int(0)
	entries := flightEntries(args.Flights)
	for _, f := range entries {
		cost, err := priceFlight(f, n, args.Cabin)
		if err != nil {
			return "", err
		}
		total = total.Add(cost)
	}
	if args.Insurance == "yes" {
		total = total.Add(py.Int(30 * n))
	}
	total = total.Add(py.Int(50).Mul(py.Int(args.NonfreeBaggages)))

	methods, err := key(user, "payment_methods")
	if err != nil {
		return "", err
	}
	paid := py.Int(0)
	for _, p := range args.PaymentMethods {
		amount := argNum(p.Amount)
		pm := methods.Get(p.PaymentID)
		if pm == nil {
			return "", errors.New("payment method " + p.PaymentID + " not found")
		}
		if source := pm.Get("source"); source.IsStr("gift_card") || source.IsStr("certificate") {
			balance, err := numAt(pm, "amount")
			if err != nil {
				return "", err
			}
			if balance.Less(amount) {
				return "", errors.New("not enough balance in payment method " + p.PaymentID)
			}
		}
	}
	for _, p := range args.PaymentMethods {
		paid = paid.Add(argNum(p.Amount))
	}
	if !paid.Equal(total) {
		return "", errors.New("payment amount does not add up, total price is " + total.Str() + ", but paid " + paid.Str())
	}

	// Apply the payments. A certificate is removed whole; one listed twice
	// raises on its second occurrence in τ-bench, after the earlier payments
	// were applied and without storing the reservation: that partial state
	// is kept here too, and the KeyError text returned.
	for _, p := range args.PaymentMethods {
		pm := methods.Get(p.PaymentID)
		if pm == nil {
			if _, err := py.SaveRecord("users", args.UserID, user); err != nil {
				return "", err
			}
			return "Error: " + py.StrRepr(p.PaymentID), nil
		}
		switch source := pm.Get("source"); {
		case source.IsStr("gift_card"):
			balance, _ := numAt(pm, "amount")
			pm.Set("amount", py.Number(balance.Sub(argNum(p.Amount))))
		case source.IsStr("certificate"):
			methods.Del(p.PaymentID)
		}
	}

	history := py.List()
	for _, p := range args.PaymentMethods {
		history.Append(paymentEntry(p.PaymentID, argNum(p.Amount)))
	}
	res := py.Object()
	res.Set("reservation_id", py.Str(resID))
	res.Set("user_id", py.Str(args.UserID))
	res.Set("origin", py.Str(args.Origin))
	res.Set("destination", py.Str(args.Destination))
	res.Set("flight_type", py.Str(args.FlightType))
	res.Set("cabin", py.Str(args.Cabin))
	res.Set("flights", py.List(entries...))
	res.Set("passengers", passengerList(args.Passengers))
	res.Set("payment_history", history)
	res.Set("created_at", py.Str("2024-05-15T15:00:00"))
	res.Set("total_baggages", py.Number(py.Int(args.TotalBaggages)))
	res.Set("nonfree_baggages", py.Number(py.Int(args.NonfreeBaggages)))
	res.Set("insurance", py.Str(args.Insurance))

	var text string
	if resID == "HATHAV" {
		if old, err := py.RecordText("reservations", resID); err != nil {
			return "", err
		} else if old != "" { // overwritten in place
			text, err = py.SaveRecord("reservations", resID, res)
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
	reservations.Append(py.Str(resID))
	if _, err := py.SaveRecord("users", args.UserID, user); err != nil {
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
	res, err := py.LoadRecord("reservations", args.ReservationID)
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
	var refunds []*py.Value
	for _, p := range history.Items() {
		id, err := key(p, "payment_id")
		if err != nil {
			return "", err
		}
		amount, err := numAt(p, "amount")
		if err != nil {
			return "", err
		}
		r := py.Object()
		r.Set("payment_id", id)
		r.Set("amount", py.Number(amount.Neg()))
		refunds = append(refunds, r)
	}
	history.Append(refunds...)
	res.Set("status", py.Str("cancelled"))
	return py.SaveRecord("reservations", args.ReservationID, res)
}

type CancelReservationArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
}

// Send a certificate to a user. Be careful!
func SendCertificate(args SendCertificateArgs) (sdk.RawJSON, error) {
	user, err := py.LoadRecord("users", args.UserID)
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
		if methods.Get(id) != nil {
			continue
		}
		amount := argNum(args.Amount)
		c := py.Object()
		c.Set("source", py.Str("certificate"))
		c.Set("amount", py.Number(amount))
		c.Set("id", py.Str(id))
		methods.Set(id, c)
		if _, err := py.SaveRecord("users", args.UserID, user); err != nil {
			return nil, err
		}
		return sdk.RawJSON("Certificate " + id + " added to user " + args.UserID + " with amount " + amount.Str() + "."), nil
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
	res, err := py.LoadRecord("reservations", args.ReservationID)
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
	extra := py.Int(args.NonfreeBaggages).Sub(current)
	if !py.Int(0).Less(extra) { // max(0, x) is 0 unless x > 0
		extra = py.Int(0)
	}
	fee := py.Int(50).Mul(extra)
	pm, user, uid, err := ownerPaymentMethod(res, args.PaymentID)
	if err != nil {
		return "", err
	}
	if err := checkUpdatePayment(pm, fee); err != nil {
		return "", err
	}
	res.Set("total_baggages", py.Number(py.Int(args.TotalBaggages)))
	res.Set("nonfree_baggages", py.Number(py.Int(args.NonfreeBaggages)))
	if pm.Get("source").IsStr("gift_card") { // even when the fee is 0
		amount, _ := numAt(pm, "amount")
		pm.Set("amount", py.Number(amount.Sub(fee)))
		if _, err := py.SaveRecord("users", uid, user); err != nil {
			return "", err
		}
	}
	if !fee.IsZero() {
		res.Get("payment_history").Append(paymentEntry(args.PaymentID, fee))
	}
	return py.SaveRecord("reservations", args.ReservationID, res)
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
	res, err := py.LoadRecord("reservations", args.ReservationID)
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
	if len(args.Passengers) != current.Len() {
		return "", errors.New("number of passengers does not match")
	}
	res.Set("passengers", passengerList(args.Passengers))
	return py.SaveRecord("reservations", args.ReservationID, res)
}

type UpdateReservationPassengersArgs struct {
	// The reservation ID, such as 'ZFA04Y'.
	ReservationID string `json:"reservation_id"`
	// An array of objects containing details about each passenger.
	Passengers []PassengerArg `json:"passengers"`
}
