package llm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/emit"
)

const faultyTool = `package tools

import "github.com/wasmenv/wasmenv/sdk"

// LookupArgs are the arguments of lookup.
type LookupArgs struct {
	// The key.
	Key string ` + "`json:\"key\"`" + `
}

// Lookup returns a value; it crashes on an unknown key instead of failing.
func Lookup(args LookupArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT v FROM kv WHERE k = ?", args.Key)
	if err == sdk.ErrNoRows {
		var m map[string]int
		m[args.Key] = 1 // a nil map write: a crash, not an error
	}
	return row, err
}
`

// TestEnvFaultsFailWhateverWasExpected: a negative test expects an error,
// and a crash is an error to the agent, but it is the code's fault; it must
// not count as a pass, in tool tests or in probes.
func TestEnvFaultsFailWhateverWasExpected(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a guest module")
	}
	dir := filepath.Join(t.TempDir(), "kv")
	err := emit.Write(dir, &emit.Env{Name: "kv", Version: "1.0.0", Description: "kv",
		Schema: "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);", Seed: "INSERT INTO kv VALUES ('a', 'x');",
		Tools: map[string][]byte{"kv.go": []byte(faultyTool)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := compiler.Build(ctx, dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	got, passed, err := runToolTest(ctx, env, toolTest{Tool: "lookup", Arguments: json.RawMessage(`{"key":"zz"}`), Expect: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if passed || !strings.Contains(got, "failure of the tool itself (trap)") {
		t.Errorf("a crash passed a negative test: %q", got)
	}
	if _, passed, _ := runToolTest(ctx, env, toolTest{Tool: "lookup", Arguments: json.RawMessage(`{"key":"a"}`), Expect: "ok"}); !passed {
		t.Error("the positive test failed")
	}
	res, err := execProbe(ctx, env, 1, []probeCall{{Tool: "lookup", Arguments: json.RawMessage(`{"key":"zz"}`), Expect: "error"},
		{Tool: "lookup", Arguments: json.RawMessage(`{"key":"a"}`), Expect: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Fault != "trap" || res[1].Fault != "" || res[1].Result != `{"v":"x"}` {
		t.Errorf("probe results: %+v", res)
	}
}
