package gates

import (
	"encoding/json"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// The duplicate gate reads arguments as the runtime does: a null member is
// an absent one, so {"a":null} and {} make the same call (issue 24: the
// gate told them apart while EnvFactory's match did not).
func TestCallsKeyNullIsAbsent(t *testing.T) {
	task := func(args string) envpkg.Task {
		return envpkg.Task{Calls: []envpkg.Call{{Name: "get", Arguments: json.RawMessage(args)}}}
	}
	if a, b := callsKey(task(`{"a":null,"b":1}`)), callsKey(task(`{"b": 1}`)); a != b {
		t.Errorf("%q != %q", a, b)
	}
	if a, b := callsKey(task(`{"b":1}`)), callsKey(task(`{"b":2}`)); a == b {
		t.Errorf("different calls share a key %q", a)
	}
}
