package taubench_test

// The error strings and quirks that the reference episodes never reach
// (testdata/TOOLS.md). Each case of testdata/cases_ref.jsonl is an episode
// whose earlier calls set up the state a later call needs; its outputs and
// final state diff were computed with τ-bench's own airline tool code
// (gen/cases.py), and must match byte for byte.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
	tb "github.com/wasmenv/wasmenv/internal/taubenchtest"
)

func TestCases(t *testing.T) {
	refs := tb.LoadRefs(t, "cases_ref.jsonl")
	h.CheckEpisodes(t, refs)

	// The quirks, spelled out (the replay above already requires them).
	byID := map[string]taubench.RefEpisode{}
	for _, ep := range refs {
		byID[ep.ID] = ep
	}
	out := func(id string, i int) string {
		ep, ok := byID[id]
		if !ok || i >= len(ep.Outputs) {
			t.Fatalf("case %s has no output %d", id, i)
		}
		return ep.Output(i)
	}
	for _, c := range []struct {
		id   string
		call int
		want string // prefix of the output
	}{
		{"unknown-ids", 0, "Error: user not found"}, // get_reservation_details says "user"
		{"book-flight-checks", 4, "Error: 'first'"}, // an unknown cabin raises KeyError
		{"book-flight-checks", 5, "Error: flight HAT999 not found"},
		{"book-payment-checks", 4, "Error: payment amount does not add up, total price is 175, but paid 174.5"},
		{"book-payment-checks", 5, `{"reservation_id": "HATHAT"`}, // 100 + 75.0 == 175
		{"fixed-ids-fourth-overwrites", 3, `{"reservation_id": "HATHAV"`},
		{"certificate-twice-partial", 0, "Error: 'certificate_7502997'"},
		{"certificate-twice-partial", 1, "Error: user not found"}, // not stored
		{"send-certificate", 0, "Certificate certificate_3221322 added to user mei_hernandez_8984 with amount 150."},
		{"send-certificate", 1, "Certificate certificate_3221323 added to user mei_hernandez_8984 with amount 150.0."},
		{"send-certificate", 3, "null"},
		{"baggages", 0, "Error: certificate cannot be used to update reservation"}, // at a zero fee
		{"update-flights-payment-checks", 3, "Error: flight HAT999 not found"},     // before the payment error
		{"update-flights-kept-not-checked", 0, "Error: flight HAT115 not available on date 2024-05-08"},
		{"searches", 4, "Error: invalid literal for int() with base 10: 'xx'"},
	} {
		if got := out(c.id, c.call); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s call %d: %.120q, want %q…", c.id, c.call, got, c.want)
		}
	}

	record := func(id, coll, key string) map[string]any {
		t.Helper()
		raw, ok := byID[id].StateDiff[coll][key]
		if !ok {
			t.Fatalf("%s: %s[%s] not in the diff", id, coll, key)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	methods := func(id string) map[string]any {
		return record(id, "users", "mei_hernandez_8984")["payment_methods"].(map[string]any)
	}
	// a certificate is consumed whole, cancelling credits nothing back
	if pm := methods("certificate-whole-cancel-refunds-nothing"); pm["certificate_7502997"] != nil ||
		pm["gift_card_5309492"].(map[string]any)["amount"] != 23.0 {
		t.Errorf("after paying 100 of a 250 certificate and 75 of a 98 gift card, then cancelling: %v", pm)
	}
	if h := record("certificate-whole-cancel-refunds-nothing", "reservations", "HATHAT")["payment_history"].([]any); len(h) != 8 {
		t.Errorf("cancelled twice: %d payment entries, want 8 (2, negated, then all 4 negated)", len(h))
	}
	// the partial state of a certificate listed twice stays
	if pm := methods("certificate-twice-partial"); pm["certificate_7502997"] != nil ||
		pm["gift_card_5309492"].(map[string]any)["amount"] != 73.0 {
		t.Errorf("certificate listed twice: %v", pm)
	}
	if _, stored := byID["certificate-twice-partial"].StateDiff["reservations"]["HATHAT"]; stored {
		t.Error("certificate listed twice: the reservation was stored")
	}
	// update_reservation_flights does not change the cabin
	if r := record("update-flights-cabin-not-updated", "reservations", "R9QDGB"); r["cabin"] != "economy" {
		t.Errorf("cabin after a change to business: %v", r["cabin"])
	}
	// a refund raises a gift card's balance
	if g := methods("update-flights-refund-raises-gift-card")["gift_card_5309492"].(map[string]any)["amount"]; g != 738.0 {
		t.Errorf("gift card after a 640 refund: %v, want 738", g)
	}
}
