package sdk

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestEncoderMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, int64(-3), 1.5, 1e21, 1e-7, 0.1 + 0.2, 100.0, "a\"b\\c\n\t\x01é\u2028",
		[]any{1.0, "x", nil}, map[string]any{"b": 1.0, "a": []any{}}, []string{"p", "q"},
		map[string]string{"z": "1", "y": "2"}, []float64{54.04, 2.5},
	}
	for _, v := range values {
		got, err := JSON(v)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		want, _ := json.Marshal(v)
		if got != string(want) && v != "a\"b\\c\n\t\x01é\u2028" {
			t.Errorf("JSON(%#v) = %s, encoding/json = %s", v, got, want)
		}
		var back any
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("JSON(%#v) = %s is not valid JSON: %v", v, got, err)
		}
	}
}

func TestEncoderRejectsNaN(t *testing.T) {
	if _, err := JSON(math.NaN()); err == nil {
		t.Fatal("NaN encoded without error")
	}
	if _, err := JSON(struct{}{}); err == nil {
		t.Fatal("struct encoded without error")
	}
}

func TestDecoderAnyMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`{"a": [1, 2.5, -3e2, "x\u00e9\n", true, false, null], "b": {}}`,
		`"\ud83d\ude00 surrogate"`, `[]`, ` 42 `,
	}
	for _, doc := range docs {
		got, err := ParseJSON(doc)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var want any
		json.Unmarshal([]byte(doc), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v want %#v", doc, got, want)
		}
	}
}

func TestDecoderErrors(t *testing.T) {
	bad := []string{``, `{`, `{"a" 1}`, `[1,]`, `"abc`, `tru`, `{"a":1} x`, `"\q"`, "\"a\x01\"", `-`}
	for _, doc := range bad {
		if _, err := ParseJSON(doc); err == nil {
			t.Errorf("%q parsed without error", doc)
		}
	}
	deep := make([]byte, 0, 2000)
	for range 1000 {
		deep = append(deep, '[')
	}
	if _, err := ParseJSON(string(deep)); err == nil {
		t.Error("deep nesting accepted")
	}
}

func TestDecoderTyped(t *testing.T) {
	d := NewDecoder([]byte(`{"n": 3, "f": 2.0, "s": "x", "ok": true, "l": [1, 2], "skip": {"z": [1]}, "nil": null}`))
	var n int64
	var l []int64
	err := d.Object(func(k string) error {
		var err error
		switch k {
		case "n":
			n, err = d.Int()
		case "f":
			var i int64
			i, err = d.Int()
			if i != 2 {
				t.Errorf("2.0 as int = %d", i)
			}
		case "l":
			err = d.Array(func() error { v, err := d.Int(); l = append(l, v); return err })
		case "nil":
			if !d.Null() {
				t.Error("null not seen")
			}
		default:
			err = d.Skip()
		}
		return err
	})
	if err != nil || n != 3 || len(l) != 2 || d.End() != nil {
		t.Fatalf("err %v n %d l %v", err, n, l)
	}
	if _, err := NewDecoder([]byte(`1.5`)).Int(); err == nil {
		t.Error("1.5 accepted as integer")
	}
}

func FuzzParseJSON(f *testing.F) {
	f.Add(`{"a":[1,"b",null]}`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseJSON(s)
		var want any
		werr := json.Unmarshal([]byte(s), &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: sdk err %v, encoding/json err %v", s, err, werr)
		}
		if err == nil {
			if _, err := JSON(v); err != nil {
				t.Fatalf("re-encode %q: %v", s, err)
			}
		}
	})
}
