package taubench_test

// Error paths and edge cases that the reference episodes rarely reach. The
// expected strings are τ-bench's (see /work/shared/taubench-retail/TOOLS.md).

import (
	"encoding/json"
	"testing"

	tb "github.com/wasmenv/wasmenv/internal/taubenchtest"
)

// skip marks an output that is not checked (a successful JSON record).
const skip = "\x00skip"

func c(name string, args string) tb.Call {
	return tb.Call{Name: name, Arguments: json.RawMessage(args)}
}

type errorCase struct {
	name  string
	calls []tb.Call
	want  []string
}

// Data used below (from the shipped data files):
//   - #W5866402: delivered, user olivia_ito_3591, paid with paypal_8049766; items
//     6242772310 (product 4354588079) and 9727387530 (product 7471004230); the user
//     also has credit_card_9753331 and gift_card_7794233 (balance 56).
//   - #W6779827: pending, user ethan_lopez_6291, paid 4079.45 with
//     gift_card_7219486 (balance 49); items include 7896397433; the user also has
//     credit_card_9789590.
//   - #W2443586: pending, user aarav_nguyen_7344, paid 591.95 with paypal_7859314;
//     gift_card_2742113 has balance 22.
//   - #W2611340: processed.
var errorCases = []errorCase{
	{"unknown ids", []tb.Call{
		c("get_order_details", `{"order_id":"#W0000000"}`),
		c("get_product_details", `{"product_id":"0000000000"}`),
		c("get_user_details", `{"user_id":"nobody_0000"}`),
		c("find_user_id_by_email", `{"email":"nobody@example.com"}`),
		c("find_user_id_by_name_zip", `{"first_name":"Noah","last_name":"Brown","zip":"00000"}`),
		c("modify_user_address", `{"user_id":"nobody_0000","address1":"a","address2":"b","city":"c","state":"d","country":"e","zip":"f"}`),
		c("cancel_pending_order", `{"order_id":"#W0000000","reason":"no longer needed"}`),
		c("modify_pending_order_address", `{"order_id":"#W0000000","address1":"a","address2":"b","city":"c","state":"d","country":"e","zip":"f"}`),
		c("modify_pending_order_items", `{"order_id":"#W0000000","item_ids":[],"new_item_ids":[],"payment_method_id":"x"}`),
		c("modify_pending_order_payment", `{"order_id":"#W0000000","payment_method_id":"x"}`),
		c("return_delivered_order_items", `{"order_id":"#W0000000","item_ids":[],"payment_method_id":"x"}`),
		c("exchange_delivered_order_items", `{"order_id":"W5866402","item_ids":[],"new_item_ids":[],"payment_method_id":"x"}`),
	}, []string{
		"Error: order not found", "Error: product not found", "Error: user not found",
		"Error: user not found", "Error: user not found", "Error: user not found",
		"Error: order not found", "Error: order not found", "Error: order not found",
		"Error: order not found", "Error: order not found", "Error: order not found",
	}},
	{"case-insensitive lookups", []tb.Call{
		c("find_user_id_by_email", `{"email":"NOAH.Brown7922@example.COM"}`),
		c("find_user_id_by_name_zip", `{"first_name":"NOAH","last_name":"brown","zip":"80279"}`),
	}, []string{"noah_brown_6181", "noah_brown_6181"}},
	{"wrong order status", []tb.Call{
		c("cancel_pending_order", `{"order_id":"#W5866402","reason":"no longer needed"}`),
		c("modify_pending_order_address", `{"order_id":"#W5866402","address1":"a","address2":"b","city":"c","state":"d","country":"e","zip":"f"}`),
		c("modify_pending_order_items", `{"order_id":"#W2611340","item_ids":[],"new_item_ids":[],"payment_method_id":"x"}`),
		c("modify_pending_order_payment", `{"order_id":"#W2611340","payment_method_id":"x"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W2611340","item_ids":[],"new_item_ids":[],"payment_method_id":"x"}`),
		c("return_delivered_order_items", `{"order_id":"#W2611340","item_ids":[],"payment_method_id":"x"}`),
		c("cancel_pending_order", `{"order_id":"#W6779827","reason":"changed my mind"}`),
	}, []string{
		"Error: non-pending order cannot be cancelled", "Error: non-pending order cannot be modified",
		"Error: non-pending order cannot be modified", "Error: non-pending order cannot be modified",
		"Error: non-delivered order cannot be exchanged", "Error: non-delivered order cannot be returned",
		"Error: invalid reason",
	}},
	{"exchange checks", []tb.Call{
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310","6242772310"],"new_item_ids":["3951031513","3951031513"],"payment_method_id":"paypal_8049766"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["1234567890"],"new_item_ids":["3951031513"],"payment_method_id":"paypal_8049766"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310"],"new_item_ids":[],"payment_method_id":"paypal_8049766"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310"],"new_item_ids":["3631875806"],"payment_method_id":"paypal_8049766"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310"],"new_item_ids":["6324294385"],"payment_method_id":"paypal_8049766"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310"],"new_item_ids":["3951031513"],"payment_method_id":"credit_card_9789590"}`),
		c("exchange_delivered_order_items", `{"order_id":"#W5866402","item_ids":["6242772310"],"new_item_ids":["3951031513"],"payment_method_id":"gift_card_7794233"}`),
	}, []string{
		"Error: 6242772310 not found", "Error: 1234567890 not found",
		"Error: the number of items to be exchanged should match",
		"Error: new item 3631875806 not found or available", "Error: new item 6324294385 not found or available",
		"Error: payment method not found",
		"Error: insufficient gift card balance to pay for the price difference",
	}},
	{"return checks", []tb.Call{
		c("return_delivered_order_items", `{"order_id":"#W5866402","item_ids":["9727387530"],"payment_method_id":"credit_card_9789590"}`),
		c("return_delivered_order_items", `{"order_id":"#W5866402","item_ids":["9727387530"],"payment_method_id":"credit_card_9753331"}`),
		c("return_delivered_order_items", `{"order_id":"#W5866402","item_ids":["9727387530","9727387530"],"payment_method_id":"paypal_8049766"}`),
		c("return_delivered_order_items", `{"order_id":"#W5866402","item_ids":["0000000000"],"payment_method_id":"gift_card_7794233"}`),
	}, []string{
		"Error: payment method not found",
		"Error: payment method should be either the original payment method or a gift card",
		"Error: some item not found", "Error: some item not found",
	}},
	{"modify items and payment checks", []tb.Call{
		c("modify_pending_order_items", `{"order_id":"#W6779827","item_ids":["7896397433","7896397433"],"new_item_ids":["3877338112","3877338112"],"payment_method_id":"gift_card_7219486"}`),
		c("modify_pending_order_items", `{"order_id":"#W6779827","item_ids":["7896397433"],"new_item_ids":["3877338112"],"payment_method_id":"gift_card_7219486"}`),
		c("modify_pending_order_items", `{"order_id":"#W6779827","item_ids":["7896397433"],"new_item_ids":["3877338112"],"payment_method_id":"paypal_7859314"}`),
		c("modify_pending_order_payment", `{"order_id":"#W6779827","payment_method_id":"gift_card_7219486"}`),
		c("modify_pending_order_payment", `{"order_id":"#W2443586","payment_method_id":"gift_card_2742113"}`),
		c("modify_pending_order_payment", `{"order_id":"#W2443586","payment_method_id":"credit_card_9789590"}`),
	}, []string{
		"Error: 7896397433 not found",
		"Error: insufficient gift card balance to pay for the new item",
		"Error: payment method not found",
		"Error: the new payment method should be different from the current one",
		"Error: insufficient gift card balance to pay for the order",
		"Error: payment method not found",
	}},
	{"calculate", []tb.Call{
		c("calculate", `{"expression":"abc"}`),
		c("calculate", `{"expression":"2 + x"}`),
		c("calculate", `{"expression":"1 / 0"}`),
		c("calculate", `{"expression":"(1 + 2"}`),
		c("calculate", `{"expression":""}`),
		c("calculate", `{"expression":"10 / 3"}`),
		c("calculate", `{"expression":"2 ** 10"}`),
		c("calculate", `{"expression":"0.125 + 0"}`),
		c("calculate", `{"expression":"-7 // 2"}`),
		c("calculate", `{"expression":"2 ** 100"}`),
		c("calculate", `{"expression":"135.24 - 153.23"}`),
	}, []string{
		"Error: invalid characters in expression", "Error: invalid characters in expression",
		"Error: division by zero", "Error: '(' was never closed (<string>, line 1)",
		"Error: invalid syntax (<string>, line 0)",
		"3.33", "1024.0", "0.12", "-4.0", "1.2676506002282294e+30", "-17.99",
	}},
	{"think and transfer", []tb.Call{
		c("think", `{"thought":"nothing to do"}`),
		c("transfer_to_human_agents", `{"summary":"wants a human"}`),
	}, []string{"", "Transfer successful"}},
}

// TestErrorPaths checks each error string, and that failed calls change nothing.
func TestErrorPaths(t *testing.T) {
	var in []tb.ReplayIn
	for _, tc := range errorCases {
		if len(tc.calls) != len(tc.want) {
			t.Fatalf("%s: %d calls, %d expected outputs", tc.name, len(tc.calls), len(tc.want))
		}
		in = append(in, tb.ReplayIn{ID: tc.name, Calls: tc.calls})
	}
	res := h.Replay(t, in)
	for _, tc := range errorCases {
		got := res[tc.name]
		for i, want := range tc.want {
			if i >= len(got.Outputs) {
				t.Errorf("%s: missing output %d", tc.name, i)
				continue
			}
			if want != skip && got.Outputs[i] != want {
				t.Errorf("%s call %d (%s %s): got %q, want %q", tc.name, i, tc.calls[i].Name, tc.calls[i].Arguments, tb.Clip(got.Outputs[i]), want)
			}
		}
		if m := tb.DiffMismatches(got.StateDiff, nil); len(m) > 0 {
			t.Errorf("%s: failed calls changed the state: %v", tc.name, m)
		}
	}
}

// TestStateEffects checks gift card arithmetic, the "exactly one payment"
// rule, and that a record changed and changed back leaves no diff.
func TestStateEffects(t *testing.T) {
	noah := `"user_id":"noah_brown_6181","address2":"Suite 259","city":"Denver","country":"USA","state":"CO","zip":"80279"`
	in := []tb.ReplayIn{
		{ID: "payment twice", Calls: []tb.Call{
			c("modify_pending_order_payment", `{"order_id":"#W6779827","payment_method_id":"credit_card_9789590"}`),
			c("modify_pending_order_payment", `{"order_id":"#W6779827","payment_method_id":"gift_card_7219486"}`),
		}},
		{ID: "cancel to gift card", Calls: []tb.Call{
			c("cancel_pending_order", `{"order_id":"#W6779827","reason":"ordered by mistake"}`),
			c("get_user_details", `{"user_id":"ethan_lopez_6291"}`),
		}},
		{ID: "address there and back", Calls: []tb.Call{
			c("modify_user_address", `{`+noah+`,"address1":"1 Elsewhere"}`),
			c("modify_user_address", `{`+noah+`,"address1":"986 Sunset Drive"}`),
		}},
		{ID: "same address", Calls: []tb.Call{
			c("modify_user_address", `{`+noah+`,"address1":"986 Sunset Drive"}`),
		}},
	}
	res := h.Replay(t, in)

	if got := res["payment twice"].Outputs; len(got) != 2 || got[1] != "Error: there should be exactly one payment for a pending order" {
		t.Errorf("payment twice: outputs %q", got)
	}
	for _, id := range []string{"payment twice", "cancel to gift card"} {
		var user struct {
			PaymentMethods map[string]struct {
				Balance float64 `json:"balance"`
			} `json:"payment_methods"`
		}
		rec := res[id].StateDiff["users"]["ethan_lopez_6291"]
		if err := json.Unmarshal(rec, &user); err != nil {
			t.Fatalf("%s: user record %s: %v", id, rec, err)
		}
		// round(49 + 4079.45, 2)
		if b := user.PaymentMethods["gift_card_7219486"].Balance; b != 4128.45 {
			t.Errorf("%s: gift card balance %v, want 4128.45", id, b)
		}
	}
	var order struct {
		Status         string `json:"status"`
		CancelReason   string `json:"cancel_reason"`
		PaymentHistory []struct {
			Type   string  `json:"transaction_type"`
			Amount float64 `json:"amount"`
		} `json:"payment_history"`
	}
	if err := json.Unmarshal(res["cancel to gift card"].StateDiff["orders"]["#W6779827"], &order); err != nil {
		t.Fatal(err)
	}
	if order.Status != "cancelled" || order.CancelReason != "ordered by mistake" || len(order.PaymentHistory) != 2 ||
		order.PaymentHistory[1].Type != "refund" || order.PaymentHistory[1].Amount != 4079.45 {
		t.Errorf("cancelled order: %+v", order)
	}
	for _, id := range []string{"address there and back", "same address"} {
		if m := tb.DiffMismatches(res[id].StateDiff, nil); len(m) > 0 {
			t.Errorf("%s: want no state change, got %v", id, m)
		}
	}
}
