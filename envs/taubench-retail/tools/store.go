package tools

import (
	"errors"
	"sort"
	"strings"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
)

// Each collection is a table (id TEXT PRIMARY KEY, data TEXT) holding the
// τ-bench record as JSON text; rowid order is the order of the data file,
// which is the iteration order of τ-bench's Python dicts.

// load returns the record of a collection ("orders", "products", "users"),
// or nil when there is none.
// orderIn loads an order and checks its status, with τ-bench's errors and
// check order: "order not found", then the tool's own status error.
func orderIn(id, status, statusErr string) (*jv, error) {
	order, err := load("orders", id)
	if err != nil {
		return nil, err
	}
	if order == nil {
		return nil, errors.New("order not found")
	}
	if !order.get("status").isStr(status) {
		return nil, errors.New(statusErr)
	}
	return order, nil
}

func load(table, id string) (*jv, error) {
	row, err := sdk.QueryRow(`SELECT data FROM `+table+` WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseJV(row.String("data"))
}

// save writes a record back. A record equal (as Python's == would say) to
// the stored one is not written, and one equal to its initial value gets its
// initial text back: the exported diff compares texts, τ-bench's compares
// dicts, so this keeps a no-op change (an address replaced by the same
// address, or changed and changed back) out of the diff, as in τ-bench.
func save(table, id string, v *jv) error {
	row, err := sdk.QueryRow(`SELECT data, init_data FROM `+table+` WHERE id = ?`, id)
	if err != nil {
		return err
	}
	cur, err := parseJV(row.String("data"))
	if err != nil {
		return err
	}
	if pyEqual(cur, v) {
		return nil
	}
	text := v.encode()
	if initText := row.String("init_data"); initText != "" {
		if init, err := parseJV(initText); err == nil && pyEqual(init, v) {
			text = initText
		}
	}
	_, err = sdk.Exec(`UPDATE `+table+` SET data = ? WHERE id = ?`, text, id)
	return err
}

// pyEqual is Python's == on two JSON-loaded values: dicts compare without
// regard to key order, numbers by value (1 == 1.0, True == 1).
func pyEqual(a, b *jv) bool {
	if a == nil || b == nil {
		return a == b
	}
	an, aNum := numeric(a)
	bn, bNum := numeric(b)
	if aNum || bNum {
		return aNum && bNum && an == bn
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case 's':
		return a.str == b.str
	case 'o':
		if len(a.keys) != len(b.keys) {
			return false
		}
		for i, k := range a.keys {
			if !pyEqual(a.vals[i], b.get(k)) {
				return false
			}
		}
		return true
	case 'a':
		if len(a.vals) != len(b.vals) {
			return false
		}
		for i := range a.vals {
			if !pyEqual(a.vals[i], b.vals[i]) {
				return false
			}
		}
		return true
	}
	return true // null
}

// numeric returns the value of a number or bool.
func numeric(v *jv) (float64, bool) {
	switch v.kind {
	case 'n':
		n, _ := v.num()
		return n.float(), true
	case 'b':
		if v.b {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// keyError is the message of Python's KeyError(key), as τ-bench's
// environment reports an exception raised by a tool ("Error: 'x'").
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

// pyLower is Python's str.lower() (Go's ToLower except for U+0130, which
// Python lowers to "i" followed by U+0307).
func pyLower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var sb strings.Builder
	for _, r := range s {
		if r == 'İ' {
			sb.WriteString("i\u0307")
		} else {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// userOf returns the user record of an order, or a KeyError.
func userOf(order *jv) (*jv, string, error) {
	uid := order.get("user_id").text()
	user, err := load("users", uid)
	if err != nil {
		return nil, "", err
	}
	if user == nil {
		return nil, "", keyError(uid)
	}
	return user, uid, nil
}

// paymentMethod returns user["payment_methods"][id], or nil.
func paymentMethod(user *jv, id string) *jv {
	return user.get("payment_methods").get(id)
}

// checkItemsExist is τ-bench's duplicate-aware check: every id of itemIDs
// occurs in itemIDs at most as often as among the order's items. It returns
// the first offending id.
func checkItemsExist(order *jv, itemIDs []string) (string, bool) {
	have := map[string]int{}
	for _, it := range order.get("items").vals {
		have[it.get("item_id").text()]++
	}
	want := map[string]int{}
	for _, id := range itemIDs {
		want[id]++
	}
	for _, id := range itemIDs {
		if want[id] > have[id] {
			return id, false
		}
	}
	return "", true
}

// firstItem returns the first order item with this item id (Python's
// [item for item in order["items"] if item["item_id"] == item_id][0]).
func firstItem(order *jv, itemID string) *jv {
	for _, it := range order.get("items").vals {
		if it.get("item_id").isStr(itemID) {
			return it
		}
	}
	return nil
}

// sortedCopy is Python's sorted() of a list of str (code point order).
func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

// balanceOf returns a gift card's balance, or a KeyError.
func balanceOf(pm *jv) (pyNum, error) {
	n, ok := pm.get("balance").num()
	if !ok {
		return pyNum{}, keyError("balance")
	}
	return n, nil
}
