package tools

import (
	"errors"
	"strings"

	"github.com/wasmenv/wasmenv/sdk/py"
)

// newAddress is the address dict τ-bench builds, in its key order.
func newAddress(address1, address2, city, state, country, zip string) *py.Value {
	a := py.Object()
	a.Set("address1", py.Str(address1))
	a.Set("address2", py.Str(address2))
	a.Set("city", py.Str(city))
	a.Set("state", py.Str(state))
	a.Set("country", py.Str(country))
	a.Set("zip", py.Str(zip))
	return a
}

// Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
func ModifyPendingOrderAddress(args ModifyPendingOrderAddressArgs) (string, error) {
	order, err := orderIn(args.OrderID, "pending", "non-pending order cannot be modified")
	if err != nil {
		return "", err
	}
	order.Set("address", newAddress(args.Address1, args.Address2, args.City, args.State, args.Country, args.Zip))
	return saveOrder(args.OrderID, order)
}

type ModifyPendingOrderAddressArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The first line of the address, such as '123 Main St'.
	Address1 string `json:"address1"`
	// The second line of the address, such as 'Apt 1' or ''.
	Address2 string `json:"address2"`
	// The city, such as 'San Francisco'.
	City string `json:"city"`
	// The province, such as 'CA'.
	State string `json:"state"`
	// The country, such as 'USA'.
	Country string `json:"country"`
	// The zip code, such as '12345'.
	Zip string `json:"zip"`
}

// Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
func ModifyPendingOrderPayment(args ModifyPendingOrderPaymentArgs) (string, error) {
	order, err := orderIn(args.OrderID, "pending", "non-pending order cannot be modified")
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
	history := order.Get("payment_history")
	if history == nil || history.Len() == 0 {
		return "", errors.New("list index out of range")
	}
	first := history.Items()[0]
	if history.Len() > 1 || !first.Get("transaction_type").IsStr("payment") {
		return "", errors.New("there should be exactly one payment for a pending order")
	}
	oldID := first.Get("payment_method_id").Text()
	if oldID == args.PaymentMethodID {
		return "", errors.New("the new payment method should be different from the current one")
	}
	amountV := first.Get("amount")
	amount, _ := amountV.Num()
	newIsGiftCard := pm.Get("source").IsStr("gift_card")
	if newIsGiftCard {
		balance, err := balanceOf(pm)
		if err != nil {
			return "", err
		}
		if balance.Less(amount) {
			return "", errors.New("insufficient gift card balance to pay for the order")
		}
	}
	payment := py.Object()
	payment.Set("transaction_type", py.Str("payment"))
	payment.Set("amount", amountV)
	payment.Set("payment_method_id", py.Str(args.PaymentMethodID))
	refund := py.Object()
	refund.Set("transaction_type", py.Str("refund"))
	refund.Set("amount", amountV)
	refund.Set("payment_method_id", first.Get("payment_method_id"))
	history.Append(payment, refund)
	changed := false
	if newIsGiftCard {
		balance, _ := balanceOf(pm)
		pm.Set("balance", py.Number(balance.Sub(amount).Round2()))
		changed = true
	}
	if strings.Contains(oldID, "gift_card") {
		old := paymentMethod(user, oldID)
		if old == nil {
			return "", py.KeyError(oldID)
		}
		balance, err := balanceOf(old)
		if err != nil {
			return "", err
		}
		old.Set("balance", py.Number(balance.Add(amount).Round2()))
		changed = true
	}
	if changed {
		if _, err := py.SaveRecord("users", uid, user); err != nil {
			return "", err
		}
	}
	return saveOrder(args.OrderID, order)
}

type ModifyPendingOrderPaymentArgs struct {
	// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
	OrderID string `json:"order_id"`
	// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
	PaymentMethodID string `json:"payment_method_id"`
}

// Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
func ModifyUserAddress(args ModifyUserAddressArgs) (string, error) {
	user, err := py.LoadRecord("users", args.UserID)
	if err != nil {
		return "", err
	}
	if user == nil {
		return "", errors.New("user not found")
	}
	user.Set("address", newAddress(args.Address1, args.Address2, args.City, args.State, args.Country, args.Zip))
	return py.SaveRecord("users", args.UserID, user)
}

type ModifyUserAddressArgs struct {
	// The user id, such as 'sara_doe_496'.
	UserID string `json:"user_id"`
	// The first line of the address, such as '123 Main St'.
	Address1 string `json:"address1"`
	// The second line of the address, such as 'Apt 1' or ''.
	Address2 string `json:"address2"`
	// The city, such as 'San Francisco'.
	City string `json:"city"`
	// The province, such as 'CA'.
	State string `json:"state"`
	// The country, such as 'USA'.
	Country string `json:"country"`
	// The zip code, such as '12345'.
	Zip string `json:"zip"`
}
