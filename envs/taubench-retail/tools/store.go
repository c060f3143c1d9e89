package tools

import (
	"errors"
	"sort"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Each collection is a table (id TEXT PRIMARY KEY, data TEXT) holding the
// τ-bench record as the text Python's json.dumps writes; rowid order is the
// order of the data file, which is the iteration order of τ-bench's Python
// dicts. A record that is only read is returned as stored, without parsing
// (py.RecordText, py.LoadRecord, py.SaveRecord).

// orderIn loads an order and checks its status, with τ-bench's errors and
// check order: "order not found", then the tool's own status error.
func orderIn(id, status, statusErr string) (*py.Value, error) {
	order, err := py.LoadRecord("orders", id)
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

// precheck is what a return or an exchange checks about the user and the
// items without changing them, answered by SQLite in one query instead of
// loading and parsing the user's record and the order's items in the guest.
type precheck struct {
	userFound  bool   // users[order["user_id"]] exists
	hasMethod  bool   // ...and has the payment method
	missing    string // the first item id listed more often than the order has it
	anyMissing bool
}

// precheckOf runs the checks for an order (its "items" member as JSON text,
// nil when it has none, as loaded: a check runs before any write), its user
// uid, the payment method pmID and the item ids (τ-bench's duplicate-aware
// check: every id of itemIDs occurs in itemIDs at most as often as among the
// order's items; ids compare as Python's == does, a str never equals a
// number). The order's item ids are gathered once (a subquery that does
// not depend on the outer row runs once), not once per id asked about.
func precheckOf(items any, uid, pmID string, itemIDs []string) (precheck, error) {
	row, err := sdk.QueryRow(`SELECT
		EXISTS (SELECT 1 FROM users WHERE id = ?1) AS user_found,
		EXISTS (SELECT 1 FROM users u, json_each(u.data, '$.payment_methods') pm
			WHERE u.id = ?1 AND pm.key = ?2) AS has_method,
		(SELECT json_quote(w.value) FROM json_each(?3) w
			WHERE (SELECT count(*) FROM json_each(?3) x WHERE x.value = w.value)
				> (SELECT count(*) FROM json_each((SELECT json_group_array(it.value ->> '$.item_id')
						FROM json_each(?4) it)) h
					WHERE h.value = w.value)
			ORDER BY w.key LIMIT 1) AS missing`,
		uid, pmID, py.Strings(itemIDs).Encode(), items)
	if err != nil {
		return precheck{}, err
	}
	c := precheck{userFound: row.Int("user_found") != 0, hasMethod: row.Int("has_method") != 0}
	if m, ok := row.Value("missing").(string); ok {
		v, err := py.Parse(m)
		if err != nil {
			return precheck{}, err
		}
		c.missing, c.anyMissing = v.Text(), true
	}
	return c, nil
}

// returnCheck is precheckOf for a return. Where the order's items are a
// list of dicts (every stored order), the duplicate-aware item check runs
// on the items as parsed (checkItemsExist: a str item_id equals a str id,
// as Python's ==) and SQLite answers only the user and payment method
// checks: the item check in SQL (json_each over the items once per id asked
// about) cost a return ~20 µs. Any other shape of items takes precheckOf's
// query as before.
func returnCheck(order *py.Value, uid, pmID string, itemIDs []string) (precheck, error) {
	items := order.Get("items")
	if !listOfDicts(items) {
		var text any // the order's items as stored (NULL: none)
		if t, ok := order.MemberJSON("items"); ok {
			text = t
		}
		return precheckOf(text, uid, pmID, itemIDs)
	}
	row, _, err := sdk.QueryText(`SELECT EXISTS (SELECT 1 FROM users WHERE id = ?1)
		|| EXISTS (SELECT 1 FROM users u, json_each(u.data, '$.payment_methods') pm
			WHERE u.id = ?1 AND pm.key = ?2)`, uid, pmID)
	if err != nil {
		return precheck{}, err
	}
	c := precheck{userFound: len(row) == 2 && row[0] == '1', hasMethod: row == "11"}
	if id, ok := checkItemsExist(order, itemIDs); !ok {
		c.missing, c.anyMissing = id, true
	}
	return c, nil
}

// listOfDicts reports whether v is a list whose elements are all dicts.
func listOfDicts(v *py.Value) bool {
	if !v.IsList() {
		return false
	}
	for _, it := range v.Items() {
		if !it.IsDict() {
			return false
		}
	}
	return true
}

// userOf returns the user record of an order, or a KeyError.
func userOf(order *py.Value) (*py.Value, string, error) {
	uid := order.Get("user_id").Text()
	user, err := py.LoadRecord("users", uid)
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
// the first offending id. Counted by scanning (a handful of items: cheaper
// in the guest than two maps).
func checkItemsExist(order *py.Value, itemIDs []string) (string, bool) {
	items := order.Get("items").Items()
	for _, id := range itemIDs {
		want, have := 0, 0
		for _, other := range itemIDs {
			if other == id {
				want++
			}
		}
		for _, it := range items {
			if it.Get("item_id").IsStr(id) {
				have++
			}
		}
		if want > have {
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
