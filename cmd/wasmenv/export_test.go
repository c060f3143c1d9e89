package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// verl's OpenAIFunctionToolSchema (verl/tools/schemas.py at volcengine/verl
// b178a3cd) takes a property's type as one string and its enum as strings,
// and requires "required": schemas it would refuse are projected onto it.
func TestVerlSchemaProjection(t *testing.T) {
	tool := envpkg.Tool{Name: "x", Description: "Does x.", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"a":{"type":["null","integer"],"description":"A."},
		"b":{"enum":[1,2]},
		"c":{"type":"string","enum":["p","q"]},
		"d":{"type":"array","items":{"type":"object","properties":{"z":{"type":"string"}}}},
		"e":5}}`)}
	got, err := verlSchemaOf(tool)
	if err != nil {
		t.Fatal(err)
	}
	want := verlSchema{Type: "function", Function: verlFunction{Name: "x", Description: "Does x.", Parameters: verlParams{
		Type: "object", Required: []string{}, Properties: map[string]verlProp{
			"a": {Type: "integer", Description: "A."},
			"b": {Type: "string"},
			"c": {Type: "string", Enum: []string{"p", "q"}},
			"d": {Type: "array"},
			"e": {Type: "string"},
		}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := verlSchemaOf(envpkg.Tool{Name: "y", InputSchema: json.RawMessage(`[1]`)}); err == nil {
		t.Error("a schema that is not an object was accepted")
	}
	f, err := verlTools("mini", []envpkg.Tool{{Name: "n"}}, "http://h:1", "")
	if err != nil || len(f.Tools) != 1 || f.Tools[0].Config["token_env"] != nil || f.Tools[0].ToolSchema.Function.Parameters.Required == nil {
		t.Errorf("no-parameter tool: %+v %v", f, err)
	}
}

// A URL goes into the YAML's header comment and its tool configs: one
// with a line break (or another control character) would add top-level
// keys to the file, so it is refused and nothing is written.
func TestVerlToolsRefusesURLWithControlCharacters(t *testing.T) {
	bundle := buildMini(t)
	out := filepath.Join(t.TempDir(), "tools.yaml")
	for _, bad := range []string{"http://h:1\nextra_key: injected", "http://h:1\rx", "http://h:1\u2028x", "http://h:1\u0085x", "ftp://h:1", "no-scheme"} {
		stdout, stderr, code := run(t, "", "export", "verl-tools", bundle, "--url", bad, "-o", out)
		if code == 0 || !strings.Contains(stderr, "--url") {
			t.Errorf("--url %q: exit %d, stdout %q, stderr %q", bad, code, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("--url %q: the file was written", bad)
		}
	}
	if _, stderr, code := run(t, "", "export", "verl-tools", bundle, "--url", "https://example.org:8443/base", "-o", out); code != 0 {
		t.Fatalf("a plain URL: %s", stderr)
	}
}
