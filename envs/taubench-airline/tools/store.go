package tools

import (
	"errors"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// Each collection is a table (id TEXT PRIMARY KEY, data TEXT) holding the
// τ-bench record as the text Python's json.dumps writes, so a record that is
// only read is returned as stored, without parsing.

// loadText returns the stored text of a record, or "" when there is none.
func loadText(table, id string) (string, error) {
	row, err := sdk.QueryRow(`SELECT data FROM `+table+` WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return row.String("data"), nil
}

// load returns a record as an ordered JSON value, or nil when there is none.
// The members stay raw json.dumps text until a tool reads them (parseLazy).
func load(table, id string) (*jv, error) {
	text, err := loadText(table, id)
	if err != nil || text == "" {
		return nil, err
	}
	return parseLazy(text)
}

// save writes a record back as json.dumps text, and returns that text. The
// runtime's diff compares values (numbers as written, so 5 and 5.0 differ
// as in τ-bench's state hash), so writing a record that did not change, or
// that changed back, adds nothing to the diff.
func save(table, id string, v *jv) (string, error) {
	text := v.encode()
	_, err := sdk.Exec(`UPDATE `+table+` SET data = ? WHERE id = ?`, text, id)
	return text, err
}

// insert stores a new record (a new key of τ-bench's dict, so it goes last).
func insert(table, id string, v *jv) (string, error) {
	text := v.encode()
	_, err := sdk.Exec(`INSERT INTO `+table+` (id, data) VALUES (?, ?)`, id, text)
	return text, err
}

// keyError is the message of Python's KeyError(key), as τ-bench's
// environment reports an exception raised by a tool ("Error: 'first'").
func keyError(key string) error { return errors.New(pyStrRepr(key)) }

// pyStrRepr is Python's repr of a str (printable characters assumed).
func pyStrRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var sb strings.Builder
	sb.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			sb.WriteString(`\\`)
		case string(r) == q:
			sb.WriteString(`\` + q)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteString(q)
	return sb.String()
}

// key returns obj[k], or a KeyError when v has no such key.
func key(v *jv, k string) (*jv, error) {
	if x := v.get(k); x != nil {
		return x, nil
	}
	return nil, keyError(k)
}

// numAt returns obj[k] as a number, or a KeyError.
func numAt(v *jv, k string) (pyNum, error) {
	x, err := key(v, k)
	if err != nil {
		return pyNum{}, err
	}
	n, ok := x.num()
	if !ok {
		return pyNum{}, errors.New("unsupported operand type: " + k + " is not a number")
	}
	return n, nil
}

// pyStr is Python's str() of a number, as f-strings write it.
func (n pyNum) str() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	return pyRepr(n.f)
}

// argNum reads a number argument as Python's json module would: an int
// literal is an int, anything else a float.
func argNum(s sdk.Number) pyNum { return parsePyNum(string(s)) }

// ownerPaymentMethod returns the payment method paymentID of the user who
// owns the reservation (users[reservation["user_id"]]["payment_methods"]),
// nil when the user has none by that id, and the user record and id to save.
func ownerPaymentMethod(res *jv, paymentID string) (pm, user *jv, uid string, err error) {
	uidV, err := key(res, "user_id")
	if err != nil {
		return nil, nil, "", err
	}
	uid = uidV.text()
	if user, err = load("users", uid); err != nil {
		return nil, nil, "", err
	}
	if user == nil {
		return nil, nil, "", keyError(uid)
	}
	methods, err := key(user, "payment_methods")
	if err != nil {
		return nil, nil, "", err
	}
	return methods.get(paymentID), user, uid, nil
}

// checkUpdatePayment is the payment check of update_reservation_baggages
// and update_reservation_flights, with their error strings, in order.
func checkUpdatePayment(pm *jv, total pyNum) error {
	if pm == nil {
		return errors.New("payment method not found")
	}
	source := pm.get("source")
	if source.isStr("certificate") {
		return errors.New("certificate cannot be used to update reservation")
	}
	if source.isStr("gift_card") {
		amount, err := numAt(pm, "amount")
		if err != nil {
			return err
		}
		if amount.less(total) {
			return errors.New("gift card balance is not enough")
		}
	}
	return nil
}
