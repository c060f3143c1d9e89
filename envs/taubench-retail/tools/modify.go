package tools

import (
	"errors"
	"strings"
)

// newAddress is the address dict τ-bench builds, in its key order.
func newAddress(address1, address2, city, state, country, zip string) *jv {
	a := jObject()
	a.set("address1", jString(address1))
	a.set("address2", jString(address2))
	a.set("city", jString(city))
	a.set("state", jString(state))
	a.set("country", jString(country))
	a.set("zip", jString(zip))
	return a
}

// Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
func ModifyPendingOrderAddress(args ModifyPendingOrderAddressArgs) (string, error) {
	order, err := orderIn(args.OrderID, "pending", "non-pending order cannot be modified")
	if err != nil {
		return "", err
	}
	order.set("address", newAddress(args.Address1, args.Address2, args.City, args.State, args.Country, args.Zip))
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
	history := order.get("payment_history")
	if history == nil || len(history.vals) == 0 {
		return "", errors.New("list index out of range")
	}
	first := history.vals[0]
	if len(history.vals) > 1 || !first.get("transaction_type").isStr("payment") {
		return "", errors.New("there should be exactly one payment for a pending order")
	}
	oldID := first.get("payment_method_id").text()
	if oldID == args.PaymentMethodID {
		return "", errors.New("the new payment method should be different from the current one")
	}
	amountV := first.get("amount")
	amount, _ := amountV.num()
	newIsGiftCard := pm.get("source").isStr("gift_card")
	if newIsGiftCard {
		balance, err := balanceOf(pm)
		if err != nil {
			return "", err
		}
		if balance.less(amount) {
			return "", errors.New("insufficient gift card balance to pay for the order")
		}
	}
	payment := jObject()
	payment.set("transaction_type", jString("payment"))
	payment.set("amount", amountV)
	payment.set("payment_method_id", jString(args.PaymentMethodID))
	refund := jObject()
	refund.set("transaction_type", jString("refund"))
	refund.set("amount", amountV)
	refund.set("payment_method_id", first.get("payment_method_id"))
	history.vals = append(history.vals, payment, refund)
	changed := false
	if newIsGiftCard {
		balance, _ := balanceOf(pm)
		pm.set("balance", jNum(balance.sub(amount).round2()))
		changed = true
	}
	if strings.Contains(oldID, "gift_card") {
		old := paymentMethod(user, oldID)
		if old == nil {
			return "", keyError(oldID)
		}
		balance, err := balanceOf(old)
		if err != nil {
			return "", err
		}
		old.set("balance", jNum(balance.add(amount).round2()))
		changed = true
	}
	if changed {
		if err := save("users", uid, user); err != nil {
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
	user, err := load("users", args.UserID)
	if err != nil {
		return "", err
	}
	if user == nil {
		return "", errors.New("user not found")
	}
	user.set("address", newAddress(args.Address1, args.Address2, args.City, args.State, args.Country, args.Zip))
	if err := save("users", args.UserID, user); err != nil {
		return "", err
	}
	return user.encode(), nil
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
