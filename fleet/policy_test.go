package fleet_test

import (
	"testing"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl/openai"
)

// TestPolicyRetries: a job's retries mean what `--retries` means locally:
// negative is none (the CLI's 0), 0 the client's default, n is n. A job
// from `--retries 0 --nats` once ran with the default's 5 retries.
func TestPolicyRetries(t *testing.T) {
	for _, c := range []struct{ in, want int }{{-1, openai.NoRetries}, {0, openai.NewClient("", "", 1).Retries}, {3, 3}} {
		p, err := (&fleet.PolicySpec{Kind: "openai", Model: "m", BaseURL: "http://127.0.0.1:1/v1", Retries: c.in}).Build()
		if err != nil {
			t.Fatal(err)
		}
		if got := p.(*openai.Policy).Client.Retries; got != c.want {
			t.Errorf("retries %d: client retries %d, want %d", c.in, got, c.want)
		}
	}
}
