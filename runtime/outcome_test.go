package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Every way a call can end has its outcome, so a trainer can tell the
// agent's mistakes from the environment's failures without reading text.
func TestCallOutcomes(t *testing.T) { eachEngine(t, testCallOutcomes) }

func testCallOutcomes(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	ep := newEpisode(t, e, "", 1)
	cases := []struct {
		name, tool, args string
		want             Outcome
	}{
		{"ok", "get", `{"key":"a"}`, OutcomeOK},
		{"ok write", "put", `{"key":"d","value":"date"}`, OutcomeOK},
		{"tool error", "get", `{"key":"zz"}`, OutcomeToolError},
		{"unknown tool", "nope", `{}`, OutcomeUnknownTool},
		{"malformed JSON", "get", `{"key":`, OutcomeInvalidArgs},
		{"not an object", "get", `[1,2]`, OutcomeInvalidArgs},
		{"missing required", "get", `{}`, OutcomeInvalidArgs},
		{"extra property", "get", `{"key":"a","x":1}`, OutcomeInvalidArgs},
		{"wrong type", "get", `{"key":5}`, OutcomeInvalidArgs},
		{"bad enum", "list", `{"order":"sideways"}`, OutcomeInvalidArgs},
		{"timeout", "abuse", `{"mode":"loop"}`, OutcomeTimeout},
		{"SQL timeout", "abuse", `{"mode":"sqlloop"}`, OutcomeTimeout},
		{"out of memory", "abuse", `{"mode":"memory"}`, OutcomeOutOfMemory},
		{"panic", "abuse", `{"mode":"panic"}`, OutcomeTrap},
		{"runtime error", "abuse", `{"mode":"nilmap"}`, OutcomeTrap},
		{"output too large", "abuse", `{"mode":"huge"}`, OutcomeTrap},
		{"refused ATTACH", "abuse", `{"mode":"attach"}`, OutcomeRefusedSQL},
		{"refused PRAGMA", "abuse", `{"mode":"pragma"}`, OutcomeRefusedSQL},
		{"refused COMMIT", "abuse", `{"mode":"commit"}`, OutcomeRefusedSQL},
	}
	for _, c := range cases {
		r := call(t, ep, c.tool, c.args)
		if r.Outcome != c.want {
			t.Errorf("%s: outcome %q, want %q (%s)", c.name, r.Outcome, c.want, r.Content)
		}
		if r.IsError != (c.want != OutcomeOK) {
			t.Errorf("%s: IsError %v with outcome %q", c.name, r.IsError, r.Outcome)
		}
		if r.IsError && !strings.HasPrefix(r.Content, "Error: ") {
			t.Errorf("%s: %q", c.name, r.Content)
		}
	}
	// A refusal is remembered for its own call only.
	if r := call(t, ep, "get", `{"key":"zz"}`); r.Outcome != OutcomeToolError {
		t.Errorf("tool error after a refusal: %q", r.Outcome)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := ep.Call(ctx, "get", []byte(`{"key":"a"}`)); err != nil || r.Outcome != OutcomeTimeout {
		t.Errorf("cancelled: %+v, %v", r, err)
	}
	ep.Close()
	if _, err := ep.Call(context.Background(), "get", []byte(`{"key":"a"}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("closed episode: %v", err)
	}
	if err := ep.Reset(); !errors.Is(err, ErrClosed) {
		t.Errorf("reset closed episode: %v", err)
	}
}

func TestOutcomeFaults(t *testing.T) {
	agent := map[Outcome]bool{OutcomeUnknownTool: true, OutcomeInvalidArgs: true}
	env := map[Outcome]bool{OutcomeTimeout: true, OutcomeOutOfMemory: true, OutcomeTrap: true, OutcomeRefusedSQL: true}
	for _, o := range []Outcome{OutcomeOK, OutcomeToolError, OutcomeUnknownTool, OutcomeInvalidArgs,
		OutcomeTimeout, OutcomeOutOfMemory, OutcomeTrap, OutcomeRefusedSQL} {
		if o.AgentFault() != agent[o] || o.EnvFault() != env[o] {
			t.Errorf("%s: agent %v env %v", o, o.AgentFault(), o.EnvFault())
		}
	}
	// The guest's own argument decoder reports bad arguments with its own
	// status (a schema that lets through what the decoder refuses).
	if o := callOutcome(wire.CallInvalidArgs, false); o != OutcomeInvalidArgs {
		t.Errorf("guest invalid args: %s", o)
	}
	if o := callOutcome(wire.CallPanic, true); o != OutcomeTrap {
		t.Errorf("guest panic: %s", o)
	}
	if o := callOutcome(wire.CallError, true); o != OutcomeRefusedSQL {
		t.Errorf("refused: %s", o)
	}
}
