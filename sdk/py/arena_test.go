package py

import (
	"testing"

	"github.com/wasmenv/wasmenv/sdk"
)

// After a call starts, a parse carves its values from the memory the last
// call used: no allocation, and the values are right (the reused memory was
// zeroed: a list parsed into what was an object's place has no keys).
func TestParseReusesTheLastCallsValues(t *testing.T) {
	doc := `{"id": "#W1", "items": [{"item_id": "1", "price": 10.5, "options": {"a": "b"}}], "status": "pending"}`
	list := `[1, "x", [true, null]]`
	sdk.StartCall()
	if _, err := Parse(doc); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		sdk.StartCall()
		v, err := Parse(doc)
		if err != nil || v.Get("items").Items()[0].Get("price").str != "10.5" {
			t.Fatalf("parse after reuse: %v %v", v, err)
		}
	})
	if allocs != 0 {
		t.Errorf("a parse after a call started allocates %.0f times, want 0", allocs)
	}
	sdk.StartCall()
	first, _ := Parse(doc)
	sdk.StartCall()
	if again, _ := Parse(doc); again != first {
		t.Error("the next call's parse does not reuse the last call's memory")
	}
	for range 3 {
		sdk.StartCall()
		a, err := Parse(list)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Encode(); got != `[1, "x", [true, null]]` {
			t.Fatalf("list parsed into reused memory: %s", got)
		}
		for _, x := range a.Items() {
			if x.keys != nil || x.dirty {
				t.Fatalf("reused value not zeroed: %+v", x)
			}
		}
		sdk.StartCall()
		o, err := ParseLazy(doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Encode(); got != doc {
			t.Fatalf("record parsed into reused memory: %s", got)
		}
	}
}

// A lazily parsed record reads every member as Parse does (skip finds each
// member's end, strings and escapes included).
func FuzzParseLazyAgreesWithParse(f *testing.F) {
	for _, s := range []string{
		`{"a": "x\\"}", "b": [1, {"c": "]"}], "d": {"e": [[]]}, "f": -1.5e3}`,
		`{"a":"\u00e9\\","b":[{},[],"{"] , "c" : null}`,
		`{"a": [1,  2], "b": {"c": "d"}}`,
		`{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		full, err := Parse(s)
		if err != nil || !full.IsDict() {
			return
		}
		lazy, err := ParseLazy(s)
		if err != nil {
			t.Fatalf("ParseLazy(%q): %v (Parse reads it)", s, err)
		}
		if len(lazy.Keys()) != len(full.Keys()) {
			t.Fatalf("keys %q vs %q", lazy.Keys(), full.Keys())
		}
		for _, k := range full.Keys() {
			if a, b := lazy.Get(k), full.Get(k); !Equal(a, b) {
				t.Fatalf("member %q of %q: lazy %s, full %s", k, s, a.Encode(), b.Encode())
			}
		}
	})
}

func TestSkipClass(t *testing.T) {
	want := map[byte]byte{'"': 1, '{': 2, '[': 2, '}': 3, ']': 3, ',': 4}
	if len(skipClass) != 256 {
		t.Fatalf("skipClass has %d entries", len(skipClass))
	}
	for c := range 256 {
		if got := skipClass[c]; got != want[byte(c)] {
			t.Errorf("skipClass[%q] = %d, want %d", byte(c), got, want[byte(c)])
		}
	}
}
