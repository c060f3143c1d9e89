package tools

import (
	"errors"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
	"github.com/wasmenv/wasmenv/sdk/py"
)

// Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.
func CancelPendingOrder(args CancelPendingOrderArgs) (string, error) {
	order, err := orderIn(args.OrderID, "pending", "non-pending order cannot be cancelled")
	if err != nil {
		return "", err
	}
	if args.Reason != "no longer needed" && args.Reason != "ordered by mistake" {
		return "", errors.New("invalid reason")
	}
	history := order.Get("payment_history")
	var refunds []*py.Value
	var user *py.Value
	uid := ""
	for _, payment := range history.Items() {
		paymentID := payment.Get("payment_method_id").Text()
		refund := py.Object()
		refund.Set("transaction_type", py.Str("refund"))
		refund.Set("amount", payment.Get("amount"))
		refund.Set("payment_method_id", payment.Get("payment_method_id"))
		refunds = append(refunds, refund)
		if strings.Contains(paymentID, "gift_card") { // refunded to the gift card immediately
			if user == nil {
				if user, uid, err = userOf(order); err != nil {
					return "", err
				}
			}
			pm := paymentMethod(user, paymentID)
			if pm == nil {
				return "", py.KeyError(paymentID)
			}
			balance, err := balanceOf(pm)
			if err != nil {
				return "", err
			}
			amount, _ := payment.Get("amount").Num()
			pm.Set("balance", py.Number(balance.Add(amount).Round2()))
		}
	}
	order.Set("status", py.Str("cancelled"))
	order.Set("cancel_reason", py.Str(args.Reason))
	history.Append(refunds...)
	if user != nil {
		if _, err := py.SaveRecord("users", uid, user); err != nil {
			return "", err
		}
	}
	return saveOrder(args.OrderID, order)
}

type CancelPendingOrderArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
	Reason string `json:"reason"`
}

// saveOrder writes the order back and returns json.dumps(order).
func saveOrder(id string, order *py.Value) (string, error) {
	return py.SaveRecord("orders", id, order)
}

// priceDifference checks the new items of an exchange or modification and
// returns Σ(new price − old price), accumulated as τ-bench does.
func priceDifference(order *py.Value, itemIDs, newItemIDs []string, vs *variants) (py.Num, error) {
	if id, ok := checkItemsExist(order, itemIDs); !ok {
		return py.Num{}, errors.New(id + " not found")
	}
	if len(itemIDs) != len(newItemIDs) {
		return py.Num{}, errors.New("the number of items to be exchanged should match")
	}
	diff := py.Int(0)
	for i, itemID := range itemIDs {
		newID := newItemIDs[i]
		item := firstItem(order, itemID)
		variant, err := vs.of(item.Get("product_id").Text(), newID)
		if err != nil {
			return py.Num{}, err
		}
		if variant == nil || !variant.Get("available").Truthy() {
			return py.Num{}, errors.New("new item " + newID + " not found or available")
		}
		oldPrice, _ := item.Get("price").Num()
		newPrice, _ := variant.Get("price").Num()
		diff = diff.Add(newPrice.Sub(oldPrice))
	}
	return diff, nil
}

// variants are the variants a call has read, by product and item id (a
// tool call reads each once: products do not change during a call); a
// handful, looked up by scanning.
type variants []variantRead

type variantRead struct {
	product, item string
	v             *py.Value
}

// of is variantOf, remembered.
func (vs *variants) of(productID, itemID string) (*py.Value, error) {
	for _, r := range *vs {
		if r.product == productID && r.item == itemID {
			return r.v, nil
		}
	}
	v, err := variantOf(productID, itemID)
	if err == nil {
		*vs = append(*vs, variantRead{productID, itemID, v})
	}
	return v, err
}

// variantOf returns products[productID]["variants"][itemID], nil when the
// product has no such variant, or a KeyError for an unknown product. It
// reads the variant's row (variants, derived from the product's record),
// not the product's record, as one text (sdk.QueryText: no JSON rendering
// of the row): NULL for an unknown product, 'n' for no such variant, 'v'
// and the variant's text otherwise.
func variantOf(productID, itemID string) (*py.Value, error) {
	text, _, err := sdk.QueryText(`SELECT CASE WHEN EXISTS (SELECT 1 FROM products WHERE id = ?1)
		THEN coalesce('v' || (SELECT data FROM variants WHERE product = ?1 AND item = ?2), 'n') END`,
		productID, itemID)
	switch {
	case err != nil:
		return nil, err
	case text == "":
		return nil, py.KeyError(productID)
	case text == "n":
		return nil, nil
	}
	// parsed in full: the row holds SQLite's JSON text (json_each), not
	// json.dumps text, so no member of it may be written back as stored
	return py.Parse(text[1:])
}

// Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.
func ExchangeDeliveredOrderItems(args ExchangeDeliveredOrderItemsArgs) (string, error) {
	order, err := orderIn(args.OrderID, "delivered", "non-delivered order cannot be exchanged")
	if err != nil {
		return "", err
	}
	var vs variants
	diff, err := priceDifference(order, args.ItemIDs, args.NewItemIDs, &vs)
	if err != nil {
		return "", err
	}
	diff = diff.Round2()
	user, _, err := userOf(order)
	if err != nil {
		return "", err
	}
	pm := paymentMethod(user, args.PaymentMethodID)
	if pm == nil {
		return "", errors.New("payment method not found")
	}
	if pm.Get("source").IsStr("gift_card") {
		balance, err := balanceOf(pm)
		if err != nil {
			return "", err
		}
		if balance.Less(diff) {
			return "", errors.New("insufficient gift card balance to pay for the price difference")
		}
	}
	order.Set("status", py.Str("exchange requested"))
	order.Set("exchange_items", py.Strings(sortedCopy(args.ItemIDs)))
	order.Set("exchange_new_items", py.Strings(sortedCopy(args.NewItemIDs)))
	order.Set("exchange_payment_method_id", py.Str(args.PaymentMethodID))
	order.Set("exchange_price_difference", py.Number(diff))
	return saveOrder(args.OrderID, order)
}

type ExchangeDeliveredOrderItemsArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.
	ItemIDs []string `json:"item_ids"`
	// The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
	NewItemIDs []string `json:"new_item_ids"`
	// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
	PaymentMethodID string `json:"payment_method_id"`
}

// Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.
func ModifyPendingOrderItems(args ModifyPendingOrderItemsArgs) (string, error) {
	order, err := orderIn(args.OrderID, "pending", "non-pending order cannot be modified")
	if err != nil {
		return "", err
	}
	var vs variants
	diff, err := priceDifference(order, args.ItemIDs, args.NewItemIDs, &vs)
	if err != nil {
		return "", err
	}
	user, uid, err := userOf(order)
	if err != nil {
		return "", err
	}
	pm := paymentMethod(user, args.PaymentMethodID)
	if pm == nil {
		return "", errors.New("payment method not found")
	}
	giftCard := pm.Get("source").IsStr("gift_card")
	if giftCard {
		balance, err := balanceOf(pm)
		if err != nil {
			return "", err
		}
		if balance.Less(diff) {
			return "", errors.New("insufficient gift card balance to pay for the new item")
		}
		pm.Set("balance", py.Number(balance.Sub(diff).Round2()))
		if _, err := py.SaveRecord("users", uid, user); err != nil {
			return "", err
		}
	}
	kind := "refund"
	if py.Int(0).Less(diff) {
		kind = "payment"
	}
	entry := py.Object()
	entry.Set("transaction_type", py.Str(kind))
	entry.Set("amount", py.Number(diff.Abs()))
	entry.Set("payment_method_id", py.Str(args.PaymentMethodID))
	history := order.Get("payment_history")
	history.Append(entry)
	for i, itemID := range args.ItemIDs {
		// the first item still carrying this id, after the earlier replacements
		item := firstItem(order, itemID)
		if item == nil {
			return "", errors.New("list index out of range")
		}
		newID := args.NewItemIDs[i]
		variant, err := vs.of(item.Get("product_id").Text(), newID)
		if err != nil {
			return "", err
		}
		if variant == nil {
			return "", py.KeyError(newID)
		}
		item.Set("item_id", py.Str(newID))
		item.Set("price", variant.Get("price"))
		item.Set("options", variant.Get("options"))
	}
	order.Set("status", py.Str("pending (item modified)"))
	return saveOrder(args.OrderID, order)
}

type ModifyPendingOrderItemsArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.
	ItemIDs []string `json:"item_ids"`
	// The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
	NewItemIDs []string `json:"new_item_ids"`
	// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
	PaymentMethodID string `json:"payment_method_id"`
}

// Return some items of a delivered order. The order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.
func ReturnDeliveredOrderItems(args ReturnDeliveredOrderItemsArgs) (string, error) {
	order, err := orderIn(args.OrderID, "delivered", "non-delivered order cannot be returned")
	if err != nil {
		return "", err
	}
	uid := order.Get("user_id").Text()
	check, err := returnCheck(order, uid, args.PaymentMethodID, args.ItemIDs)
	if err != nil {
		return "", err
	}
	if !check.userFound {
		return "", py.KeyError(uid)
	}
	if !check.hasMethod {
		return "", errors.New("payment method not found")
	}
	if !strings.Contains(args.PaymentMethodID, "gift_card") {
		history := order.Get("payment_history")
		if history == nil || history.Len() == 0 {
			return "", errors.New("list index out of range")
		}
		if !history.Items()[0].Get("payment_method_id").IsStr(args.PaymentMethodID) {
			return "", errors.New("payment method should be either the original payment method or a gift card")
		}
	}
	if check.anyMissing {
		return "", errors.New("some item not found")
	}
	order.Set("status", py.Str("return requested"))
	order.Set("return_items", py.Strings(sortedCopy(args.ItemIDs)))
	order.Set("return_payment_method_id", py.Str(args.PaymentMethodID))
	return saveOrder(args.OrderID, order)
}

type ReturnDeliveredOrderItemsArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.
	ItemIDs []string `json:"item_ids"`
	// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
	PaymentMethodID string `json:"payment_method_id"`
}
