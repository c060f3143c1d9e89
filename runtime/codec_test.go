package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Arguments decoded by generated code and re-encoded by generated code
// arrive JSON-equal.
func TestGeneratedCodecsRoundTrip(t *testing.T) { eachEngine(t, testGeneratedCodecsRoundTrip) }

func testGeneratedCodecsRoundTrip(t *testing.T, engine string) {
	e := loadEnvWith(t, "types", engine)
	ep := newEpisode(t, e, "", 1)
	in := `{"s":"h\u00e9\"llo\n","i":-9007199254740993,"i32":-5,"u":7,"f":0.1,"b":true,"c":"red",
		"items":[{"id":"x","qty":2,"price":54.04,"note":"n","tags":["a","b"]},{"id":"y","qty":0,"price":1e21}],
		"m":{"z":"1","a":"2"},"a":{"deep":[1,"two",null,{"x":false}]},"p":{"id":"p","qty":1,"price":2},
		"ll":[[1,2],[]],"default_name":"d"}`
	r := call(t, ep, "echo", in)
	if r.IsError {
		t.Fatal(r.Content)
	}
	var want, got any
	json.Unmarshal([]byte(in), &want)
	if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
		t.Fatalf("output is not JSON: %s", r.Content)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("round trip changed the value\n in: %s\nout: %s", in, r.Content)
	}
	// Optional fields omitted stay omitted; nil slices are null.
	r = call(t, ep, "echo", `{"s":"","i":0,"i32":0,"u":0,"f":0,"b":false,"c":"green","items":[],"m":{},"a":null}`)
	if r.Content != `{"s":"","i":0,"i32":0,"u":0,"f":0,"b":false,"c":"green","items":[],"m":{},"a":null}` {
		t.Fatalf("minimal: %s", r.Content)
	}
	if r := call(t, ep, "echo", `{"s":"","i":0,"i32":0,"u":-1,"f":0,"b":false,"c":"red","items":[],"m":{},"a":1}`); !r.IsError {
		t.Fatalf("negative uint accepted: %s", r.Content)
	}
	if r := call(t, ep, "rows", `{}`); r.IsError || !strings.HasPrefix(r.Content, `[{"one":1,"two":2.5,"three":"x","four":null,"five":"`) {
		t.Fatalf("rows: %s", r.Content)
	}
	if r := call(t, ep, "nothing", `{}`); r.Content != "null" {
		t.Fatalf("nothing: %s", r.Content)
	}
}
