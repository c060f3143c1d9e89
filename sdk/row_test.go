package sdk

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// testRow is a one-row result with no host-rendered JSON.
func testRow(cols []string, vals ...any) Row {
	var b []byte
	for _, v := range vals {
		var err error
		if b, err = wire.AppendValue(b, v); err != nil {
			panic(err)
		}
	}
	return Row{&result{cols: cols, n: 1, offs: make([]byte, 4), vals: b}, 0}
}

// A misspelled column is the author's mistake: the typed accessors panic
// with the row's columns (a tool error the author sees in wasmenv test)
// instead of answering "" or 0 (issue 14, point 5).
func TestRowAccessorsRefuseUnknownColumns(t *testing.T) {
	r := testRow([]string{"id", "status", "total", "note"}, int64(7), "pending", 4.5, nil)
	if r.String("status") != "pending" || r.Int("id") != 7 || r.Float("total") != 4.5 || !r.Bool("id") || r.String("note") != "" {
		t.Fatal("accessors on existing columns")
	}
	for name, f := range map[string]func(){
		"String": func() { r.String("stauts") }, "Int": func() { r.Int("ids") },
		"Float": func() { r.Float("totl") }, "Bool": func() { r.Bool("flag") },
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, `has no column "`) || !strings.Contains(msg, "id, status, total, note") {
					t.Errorf("%s on a missing column: panic %q", name, msg)
				}
			}()
			f()
		}()
	}
	// Value, IsNull and Has stay lenient: they are how a tool asks.
	if r.Value("x") != nil || !r.IsNull("x") || r.Has("x") {
		t.Error("lenient accessors")
	}
}

// firstString (QueryText's reading of a response in place) reads every
// value type as Row.String does, and a malformed value is an error.
func TestFirstString(t *testing.T) {
	for _, c := range []struct {
		vals []byte
		want string
	}{
		{[]byte{wire.TagNull}, ""},
		{wire.AppendInt(nil, -42), "-42"},
		{wire.AppendFloat(nil, 2.5), "2.5"},
		{wire.AppendTextBytes(nil, []byte("héllo")), "héllo"},
		{wire.AppendBlob(nil, []byte{0, 1}), "\x00\x01"},
	} {
		if got, err := firstString(c.vals); err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.vals, got, err, c.want)
		}
	}
	for _, bad := range [][]byte{nil, {9}, {wire.TagText, 5, 'a'}, {wire.TagFloat, 1, 2}, {wire.TagInt}} {
		if _, err := firstString(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
