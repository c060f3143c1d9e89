package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Issue 13 item 7: schema validation could take exponential time before the
// call timer started (a oneOf of two self-references over a 24-deep array:
// 89 s of CPU), and its error text was unbounded (394 MB returned as the
// tool result). Schemas with references are refused at load, and the error
// text is capped by max_output_bytes.
func TestSchemaCostIsBounded(t *testing.T) {
	b := *testBundle(t, "edge", false)
	m := b.Manifest
	m.Tools = append([]envpkg.Tool(nil), m.Tools...)
	m.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},
		"$defs":{"n":{"oneOf":[{"$ref":"#/$defs/n"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}}}`)
	b.Manifest = m
	if e, err := LoadBundle(context.Background(), &b, Options{}); err == nil {
		e.Close()
		t.Fatal("loaded a tool schema with self-references")
	} else if !strings.Contains(err.Error(), "$ref") {
		t.Fatalf("error: %v", err)
	}

	m.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`)
	m.Limits.MaxOutputBytes = 4096
	b.Manifest = m
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	nums := make([]int, 100_000)
	args, _ := json.Marshal(map[string]any{"a": nums})
	r := call(t, newEpisode(t, e, "", 1), m.Tools[0].Name, string(args))
	if !r.IsError || len(r.Content) > 4096 {
		t.Fatalf("100000 schema errors gave a %d-byte result (limit 4096)", len(r.Content))
	}
}

// Validation runs under the call's deadline: a schema that is costly for
// large arguments gives the timeout outcome instead of holding the caller.
func TestSchemaValidationHasTheCallDeadline(t *testing.T) {
	b := *testBundle(t, "edge", false)
	m := b.Manifest
	m.Tools = append([]envpkg.Tool(nil), m.Tools...)
	var alts []string
	for i := range 200 {
		alts = append(alts, fmt.Sprintf(`{"type":"string","pattern":"^(x+)+y%d$"}`, i))
	}
	m.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[` + strings.Join(alts, ",") + `]}}}}`)
	m.Limits.CallTimeoutMS = 100
	b.Manifest = m
	// The work of a validation is bounded (schema nodes × argument nodes)
	// but not counted: the wall-clock guard stops one a slow host cannot
	// finish.
	e, err := LoadBundle(context.Background(), &b, Options{WallGuard: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	xs := make([]string, 20_000)
	for i := range xs {
		xs[i] = "xxxxxxxxxxxxxxxxxxxx"
	}
	args, _ := json.Marshal(map[string]any{"a": xs})
	r := call(t, newEpisode(t, e, "", 1), m.Tools[0].Name, string(args))
	if r.Outcome != OutcomeTimeout || !strings.Contains(r.Content, "wall-clock guard") {
		t.Fatalf("validation past the wall-clock guard of 100 ms: %q %.200s", r.Outcome, r.Content)
	}
}
