package main

import (
	"encoding/json"
	"reflect"
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
