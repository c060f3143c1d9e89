package tools

import (
	"errors"
	"sort"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Each collection is a table (id TEXT PRIMARY KEY, data TEXT) holding the
// τ-bench record as JSON text; rowid order is the order of the data file,
// which is the iteration order of τ-bench's Python dicts.

// load returns the record of a collection ("orders", "products", "users"),
// or nil when there is none.
// orderIn loads an order and checks its status, with τ-bench's errors and
// check order: "order not found", then the tool's own status error.
func orderIn(id, status, statusErr string) (*py.Value, error) {
	order, err := load("orders", id)
	if err != nil {
		return nil, err
	}
	if order == nil {
		return nil, errors.New("order not found")
	}
	if !order.Get("status").IsStr(status) {
		return nil, errors.New(statusErr)
	}
	return order, nil
}

func load(table, id string) (*py.Value, error) {
	row, err := sdk.QueryRow(`SELECT data FROM `+table+` WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return py.Parse(row.String("data"))
}

// save writes a record back. A record equal (as Python's == would say) to
// the stored one is not written, and one equal to its initial value gets its
// initial text back: the exported diff compares texts, τ-bench's compares
// dicts, so this keeps a no-op change (an address replaced by the same
// address, or changed and changed back) out of the diff, as in τ-bench.
func save(table, id string, v *py.Value) error {
	row, err := sdk.QueryRow(`SELECT data, init_data FROM `+table+` WHERE id = ?`, id)
	if err != nil {
		return err
	}
	cur, err := py.Parse(row.String("data"))
	if err != nil {
		return err
	}
	if py.Equal(cur, v) {
		return nil
	}
	text := v.Encode()
	if initText := row.String("init_data"); initText != "" {
		if init, err := py.Parse(initText); err == nil && py.Equal(init, v) {
			text = initText
		}
	}
	_, err = sdk.Exec(`UPDATE `+table+` SET data = ? WHERE id = ?`, text, id)
	return err
}

// userOf returns the user record of an order, or a KeyError.
func userOf(order *py.Value) (*py.Value, string, error) {
	uid := order.Get("user_id").Text()
	user, err := load("users", uid)
	if err != nil {
		return nil, "", err
	}
	if user == nil {
		return nil, "", py.KeyError(uid)
	}
	return user, uid, nil
}

// paymentMethod returns user["payment_methods"][id], or nil.
func paymentMethod(user *py.Value, id string) *py.Value {
	return user.Get("payment_methods").Get(id)
}

// checkItemsExist is τ-bench's duplicate-aware check: every id of itemIDs
// occurs in itemIDs at most as often as among the order's items. It returns
// the first offending id.
func checkItemsExist(order *py.Value, itemIDs []string) (string, bool) {
	have := map[string]int{}
	for _, it := range order.Get("items").Items() {
		have[it.Get("item_id").Text()]++
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
func firstItem(order *py.Value, itemID string) *py.Value {
	for _, it := range order.Get("items").Items() {
		if it.Get("item_id").IsStr(itemID) {
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
func balanceOf(pm *py.Value) (py.Num, error) {
	n, ok := pm.Get("balance").Num()
	if !ok {
		return py.Num{}, py.KeyError("balance")
	}
	return n, nil
}
