package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// returnWindowDays is how long after delivery items may be returned or exchanged.
const returnWindowDays = 30

// maxCompensationCents caps a compensation gift card.
const maxCompensationCents = 3000

// now is the episode clock as an RFC 3339 timestamp.
func now() string { return sdk.Now().Format(time.RFC3339) }

// today is the episode clock's date (YYYY-MM-DD).
func today() string { return sdk.Now().Format("2006-01-02") }

// oneOf checks an enumerated argument (the schema already restricts it;
// this keeps the rule when a tool is called without schema validation).
func oneOf(field, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return fmt.Errorf("%s must be one of %s, not %q", field, strings.Join(allowed, ", "), value)
}

// normOrderID accepts "#W1002", "W1002" or "1002" and returns "#W1002".
func normOrderID(id string) string {
	id = strings.TrimSpace(id)
	switch {
	case strings.HasPrefix(id, "#"):
		return strings.ToUpper(id)
	case strings.HasPrefix(strings.ToUpper(id), "W"):
		return "#" + strings.ToUpper(id)
	case id != "":
		return "#W" + id
	}
	return id
}

// cents formats an amount of cents as dollars.
func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s$%d.%02d", sign, c/100, c%100)
}

func loadCustomer(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT * FROM customers WHERE customer_id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("customer %s not found", id)
	}
	return row, err
}

func loadOrder(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT * FROM orders WHERE order_id = ?`, normOrderID(id))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("order %s not found", id)
	}
	return row, err
}

// loadItem returns an order item joined with its variant and product.
func loadItem(orderID string, itemID int) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT i.item_id, i.order_id, i.variant_id, i.quantity, i.unit_price_cents,
		i.status, v.product_id, p.name AS product_name, p.final_sale
		FROM order_items i JOIN variants v USING (variant_id) JOIN products p USING (product_id)
		WHERE i.item_id = ? AND i.order_id = ?`, itemID, orderID)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("item %d is not part of order %s", itemID, orderID)
	}
	return row, err
}

func loadVariant(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT v.*, p.name AS product_name FROM variants v
		JOIN products p USING (product_id) WHERE variant_id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("variant %s not found", id)
	}
	return row, err
}

// checkDistinct refuses an empty list or a repeated item id.
func checkDistinct(ids []int) error {
	if len(ids) == 0 {
		return fmt.Errorf("item_ids must not be empty")
	}
	seen := make(map[int]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return fmt.Errorf("item %d is listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

// withinReturnWindow checks that the order was delivered no more than
// returnWindowDays ago.
func withinReturnWindow(orderID string) error {
	row, err := sdk.QueryRow(`SELECT MAX(delivered_at) AS d FROM shipments WHERE order_id = ?`, orderID)
	if err != nil {
		return err
	}
	if row.IsNull("d") {
		return fmt.Errorf("order %s has no delivery date", orderID)
	}
	delivered, err := time.Parse(time.RFC3339, row.String("d"))
	if err != nil {
		return fmt.Errorf("order %s: bad delivery date %q", orderID, row.String("d"))
	}
	if sdk.Now().Sub(delivered) > returnWindowDays*24*time.Hour {
		return fmt.Errorf("order %s was delivered on %s, more than %d days ago: it is outside the return window",
			orderID, delivered.Format("2006-01-02"), returnWindowDays)
	}
	return nil
}

// source is a resolved payment source: a saved payment method or a gift card.
type source struct {
	typ string // credit_card, paypal or gift_card
	id  string
}

// resolveSource finds a payment method or gift card that belongs to the
// customer and is usable; need is the amount that will be charged to it (0
// for a refund).
func resolveSource(customerID, id string, need int64) (source, error) {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(strings.ToUpper(id), "GC-") {
		gc, err := sdk.QueryRow(`SELECT * FROM gift_cards WHERE code = ?`, strings.ToUpper(id))
		if err == sdk.ErrNoRows {
			return source{}, fmt.Errorf("gift card %s not found", id)
		} else if err != nil {
			return source{}, err
		}
		if gc.String("customer_id") != customerID {
			return source{}, fmt.Errorf("gift card %s does not belong to customer %s", id, customerID)
		}
		if err := usableGiftCard(gc); err != nil {
			return source{}, err
		}
		if gc.Int("balance_cents") < need {
			return source{}, fmt.Errorf("gift card %s has a balance of %s, not enough for %s",
				gc.String("code"), cents(gc.Int("balance_cents")), cents(need))
		}
		return source{"gift_card", gc.String("code")}, nil
	}
	pm, err := sdk.QueryRow(`SELECT type FROM payment_methods WHERE payment_method_id = ? AND customer_id = ?`, id, customerID)
	if err == sdk.ErrNoRows {
		return source{}, fmt.Errorf("payment method %s not found for customer %s", id, customerID)
	} else if err != nil {
		return source{}, err
	}
	return source{pm.String("type"), id}, nil
}

func usableGiftCard(gc sdk.Row) error {
	if gc.String("status") != "active" {
		return fmt.Errorf("gift card %s is %s", gc.String("code"), gc.String("status"))
	}
	if gc.String("expires_at") < today() {
		return fmt.Errorf("gift card %s expired on %s", gc.String("code"), gc.String("expires_at"))
	}
	return nil
}

// orderSources lists the order's payment sources with their net paid
// amount (charges minus refunds), in the order they were first used.
func orderSources(orderID string) (sdk.Rows, error) {
	return sdk.Query(`SELECT source_type, source_id,
		SUM(CASE kind WHEN 'charge' THEN amount_cents ELSE -amount_cents END) AS net_cents
		FROM transactions WHERE order_id = ?
		GROUP BY source_type, source_id ORDER BY MIN(transaction_id)`, orderID)
}

// resolveRefundTarget accepts a card or PayPal account that paid for the
// order, or one of the customer's usable gift cards.
func resolveRefundTarget(order sdk.Row, id string) (source, error) {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(strings.ToUpper(id), "GC-") {
		return resolveSource(order.String("customer_id"), id, 0)
	}
	srcs, err := orderSources(order.String("order_id"))
	if err != nil {
		return source{}, err
	}
	for _, s := range srcs.All() {
		if s.String("source_id") == id && s.String("source_type") != "gift_card" {
			return source{s.String("source_type"), id}, nil
		}
	}
	return source{}, fmt.Errorf("refunds for order %s can go only to its original payment method or to one of the customer's gift cards, not %s",
		order.String("order_id"), id)
}

// addTransaction records a charge or refund and moves gift card balances.
func addTransaction(orderID, kind string, src source, amount int64, note string) error {
	if amount <= 0 {
		return nil
	}
	if src.typ == "gift_card" {
		delta := amount
		if kind == "charge" {
			delta = -amount
		}
		res, err := sdk.Exec(`UPDATE gift_cards SET balance_cents = balance_cents + ? WHERE code = ? AND balance_cents + ? >= 0`,
			delta, src.id, delta)
		if err != nil {
			return err
		}
		if res.RowsAffected != 1 {
			return fmt.Errorf("gift card %s has insufficient balance", src.id)
		}
	}
	_, err := sdk.Exec(`INSERT INTO transactions (order_id, kind, source_type, source_id, amount_cents, note, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, orderID, kind, src.typ, src.id, amount, note, now())
	return err
}

// nextID returns prefix followed by one more than the largest number used in
// column col of table (ids look like prefix + digits).
func nextID(table, col, prefix string, first int64) (string, error) {
	row, err := sdk.QueryRow(`SELECT MAX(CAST(SUBSTR(`+col+`, ?) AS INTEGER)) AS n FROM `+table+` WHERE `+col+` LIKE ?`,
		len(prefix)+1, prefix+"%")
	if err != nil {
		return "", err
	}
	n := first
	if !row.IsNull("n") {
		n = row.Int("n") + 1
	}
	return fmt.Sprintf("%s%d", prefix, n), nil
}

// itemSwap is one item moved to another variant of the same product.
type itemSwap struct {
	item    sdk.Row
	variant sdk.Row
	diff    int64 // price difference for the whole line, in cents
}

// planSwaps validates replacing each item with a variant of the same product
// that is active and in stock.
func planSwaps(orderID string, itemIDs []int, variantIDs []string) ([]itemSwap, int64, error) {
	if err := checkDistinct(itemIDs); err != nil {
		return nil, 0, err
	}
	if len(itemIDs) != len(variantIDs) {
		return nil, 0, fmt.Errorf("item_ids and new_variant_ids must have the same length (%d and %d)", len(itemIDs), len(variantIDs))
	}
	var swaps []itemSwap
	var total int64
	for i, id := range itemIDs {
		item, err := loadItem(orderID, id)
		if err != nil {
			return nil, 0, err
		}
		if item.String("status") != "ordered" {
			return nil, 0, fmt.Errorf("item %d is %s and cannot be changed", id, item.String("status"))
		}
		v, err := loadVariant(variantIDs[i])
		if err != nil {
			return nil, 0, err
		}
		if v.String("product_id") != item.String("product_id") {
			return nil, 0, fmt.Errorf("variant %s is a %s, but item %d is a %s: items can only be swapped for another variant of the same product",
				v.String("variant_id"), v.String("product_name"), id, item.String("product_name"))
		}
		if v.String("variant_id") == item.String("variant_id") {
			return nil, 0, fmt.Errorf("item %d is already variant %s", id, v.String("variant_id"))
		}
		if !v.Bool("active") {
			return nil, 0, fmt.Errorf("variant %s is discontinued", v.String("variant_id"))
		}
		if v.Int("stock") < item.Int("quantity") {
			return nil, 0, fmt.Errorf("variant %s is out of stock (%d left, %d needed)", v.String("variant_id"), v.Int("stock"), item.Int("quantity"))
		}
		diff := (v.Int("price_cents") - item.Int("unit_price_cents")) * item.Int("quantity")
		total += diff
		swaps = append(swaps, itemSwap{item: item, variant: v, diff: diff})
	}
	return swaps, total, nil
}

// settleDifference charges a positive difference to paymentID or refunds a
// negative one to it.
func settleDifference(order sdk.Row, diff int64, paymentID, note string) (string, error) {
	if diff == 0 {
		return "no price difference", nil
	}
	if strings.TrimSpace(paymentID) == "" {
		return "", fmt.Errorf("the price difference is %s: payment_method_id is required", cents(diff))
	}
	orderID := order.String("order_id")
	if diff > 0 {
		src, err := resolveSource(order.String("customer_id"), paymentID, diff)
		if err != nil {
			return "", err
		}
		if err := addTransaction(orderID, "charge", src, diff, note); err != nil {
			return "", err
		}
		return fmt.Sprintf("charged %s to %s", cents(diff), src.id), nil
	}
	src, err := resolveRefundTarget(order, paymentID)
	if err != nil {
		return "", err
	}
	if err := addTransaction(orderID, "refund", src, -diff, note); err != nil {
		return "", err
	}
	return fmt.Sprintf("refunded %s to %s", cents(-diff), src.id), nil
}
