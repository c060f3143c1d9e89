package tools

// Native unit tests of the JSON helpers (the tool package also builds for
// the host; the bundle's compiler skips _test.go files).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/py"
)

// Every shipped user and reservation, parsed lazily and written back without
// reading a member, is its stored json.dumps text; reading every member
// (forcing) and writing back gives the same text too.
func TestLazyRoundTrip(t *testing.T) {
	for _, name := range []string{"users.json", "reservations.json"} {
		data, err := os.ReadFile(filepath.Join("..", "data", name))
		if err != nil {
			t.Fatal(err)
		}
		var recs map[string]json.RawMessage
		if err := json.Unmarshal(data, &recs); err != nil {
			t.Fatal(err)
		}
		for id, raw := range recs {
			text := string(raw)
			v, err := py.ParseLazy(text)
			if err != nil {
				t.Fatalf("%s %s: %v", name, id, err)
			}
			if got := v.Encode(); got != text {
				t.Fatalf("%s %s: lazy round trip differs:\n got  %.200s\n want %.200s", name, id, got, text)
			}
			for _, k := range append([]string(nil), v.Keys()...) {
				v.Get(k)
			}
			if got := v.Encode(); got != text {
				t.Fatalf("%s %s: forced round trip differs:\n got  %.200s\n want %.200s", name, id, got, text)
			}
		}
	}
}

// appendHit's re-spacing agrees with parsing and encoding, and falls back
// where re-spacing could not match Python.
func TestAppendHit(t *testing.T) {
	for _, c := range []struct{ head, day, date, want string }{
		{`{"flight_number":"HAT001","origin":"PHL","scheduled_departure_time_est":"06:00:00"}`,
			`{"status":"available","available_seats":{"economy":12},"prices":{"economy":175}}`, "",
			`{"flight_number": "HAT001", "origin": "PHL", "scheduled_departure_time_est": "06:00:00", "status": "available", "available_seats": {"economy": 12}, "prices": {"economy": 175}}`},
		{`{"flight_number":"HAT001"}`, `{"status":"landed"}`, "2024-05-20",
			`{"flight_number": "HAT001", "status": "landed", "date": "2024-05-20"}`},
		// a float: parsed, written as Python's repr
		{`{"a":1.50}`, `{"b":[1e2,-0]}`, "", `{"a": 1.5, "b": [100.0, 0]}`},
		// non-ASCII and escapes: parsed, written with \u escapes
		{`{"a":"é\"x"}`, `{"b":"\u00e9"}`, "", `{"a": "\u00e9\"x", "b": "\u00e9"}`},
		// dict.update overwrites in place; "date" too
		{`{"status":"x","n":1,"date":"d"}`, `{"status":"available"}`, "2024-05-21",
			`{"status": "available", "n": 1, "date": "2024-05-21"}`},
	} {
		got, err := appendHit(nil, c.head, c.day, c.date)
		if err != nil || string(got) != c.want {
			t.Errorf("appendHit(%s, %s, %q) = %s, %v; want %s", c.head, c.day, c.date, got, err, c.want)
		}
		slow, err := flightHit(c.head, c.day)
		if err != nil {
			t.Fatal(err)
		}
		if c.date != "" {
			slow.Set("date", py.Str(c.date))
		}
		if !bytes.Equal([]byte(slow.Encode()), got) {
			t.Errorf("parse path %s differs from %s", slow.Encode(), got)
		}
	}
}

func TestPyInt2(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{"20", 20, ""}, {"05", 5, ""}, {" 5", 5, ""}, {"+5", 5, ""}, {"-5", -5, ""}, {"٢٠", 20, ""},
		{"xx", 0, "invalid literal for int() with base 10: 'xx'"},
		{"", 0, "invalid literal for int() with base 10: ''"},
		{"5_", 0, "invalid literal for int() with base 10: '5_'"},
	} {
		n, err := pyInt2(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("pyInt2(%q) error %v, want %q", c.in, err, c.err)
			}
		} else if err != nil || n != c.want {
			t.Errorf("pyInt2(%q) = %d, %v; want %d", c.in, n, err, c.want)
		}
	}
}
