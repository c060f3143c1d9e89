package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Each collection is a table (id TEXT PRIMARY KEY, data TEXT) holding the
// τ-bench record as the text Python's json.dumps writes, so a record that is
// only read is returned as stored, without parsing (py.RecordText,
// py.LoadRecord, py.SaveRecord).

// insert stores a new record (a new key of τ-bench's dict, so it goes last).
func insert(table, id string, v *py.Value) (string, error) {
	text := v.Encode()
	_, err := sdk.Exec(`INSERT INTO `+table+` (id, data) VALUES (?, ?)`, id, text)
	return text, err
}

// key returns obj[k], or a KeyError when v has no such key.
func key(v *py.Value, k string) (*py.Value, error) {
	if x := v.Get(k); x != nil {
		return x, nil
	}
	return nil, py.KeyError(k)
}

// numAt returns obj[k] as a number, or a KeyError.
func numAt(v *py.Value, k string) (py.Num, error) {
	x, err := key(v, k)
	if err != nil {
		return py.Num{}, err
	}
	n, ok := x.Num()
	if !ok {
		return py.Num{}, errors.New("unsupported operand type: " + k + " is not a number")
	}
	return n, nil
}

// argNum reads a number argument as Python's json module would: an int
// literal is an int, anything else a float.
func argNum(s sdk.Number) py.Num { return py.ParseNum(string(s)) }

// ownerPaymentMethod returns the payment method paymentID of the user who
// owns the reservation (users[reservation["user_id"]]["payment_methods"]),
// nil when the user has none by that id, and the user record and id to save.
func ownerPaymentMethod(res *py.Value, paymentID string) (pm, user *py.Value, uid string, err error) {
	uidV, err := key(res, "user_id")
	if err != nil {
		return nil, nil, "", err
	}
	uid = uidV.Text()
	if user, err = py.LoadRecord("users", uid); err != nil {
		return nil, nil, "", err
	}
	if user == nil {
		return nil, nil, "", py.KeyError(uid)
	}
	methods, err := key(user, "payment_methods")
	if err != nil {
		return nil, nil, "", err
	}
	return methods.Get(paymentID), user, uid, nil
}

// checkUpdatePayment is the payment check of update_reservation_baggages
// and update_reservation_flights, with their error strings, in order.
func checkUpdatePayment(pm *py.Value, total py.Num) error {
	if pm == nil {
		return errors.New("payment method not found")
	}
	source := pm.Get("source")
	if source.IsStr("certificate") {
		return errors.New("certificate cannot be used to update reservation")
	}
	if source.IsStr("gift_card") {
		amount, err := numAt(pm, "amount")
		if err != nil {
			return err
		}
		if amount.Less(total) {
			return errors.New("gift card balance is not enough")
		}
	}
	return nil
}
