package py

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// Expected texts below are what CPython's json.dumps(json.loads(in)),
// str(round(float(eval(e)), 2)), repr() and str.lower() print (Python 3.11
// for the calculator's error texts, as τ-bench's airline TOOLS.md records).

func TestParseEncodeIsJSONDumps(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":[1.0,2.50,1e16,1.5e-05,-0.0,10,"\u00e9\ud83d\ude00\n",true,false,null]}`,
			`{"b": 1, "a": [1.0, 2.5, 1e+16, 1.5e-05, -0.0, 10, "\u00e9\ud83d\ude00\n", true, false, null]}`},
		// a repeated key keeps its first position and its last value
		{`{"b":1,"a":2,"a":{"x":"\"q\\"}}`, `{"b": 1, "a": {"x": "\"q\\"}}`},
		{` [ ] `, `[]`},
		{`{}`, `{}`},
		{`"tab\there/é"`, `"tab\there/\u00e9"`},
		{`123456789012345678901`, `1.2345678901234568e+20`}, // past int64: a float here (Python keeps the int; records hold none)
	}
	for _, c := range cases {
		v, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		if got := v.Encode(); got != c.want {
			t.Errorf("Parse(%s).Encode()\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a" 1}`, `[1,]`, `"open`, `1 2`, `-`, `{"a":1}x`} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

// A lazily parsed record writes back its stored text unchanged, reads a
// member on demand, and a changed member is re-encoded in place.
func TestParseLazy(t *testing.T) {
	text := `{"id": "u1", "balance": 10.5, "tags": ["a", "b"], "name": {"first": "Ann"}}`
	v, err := ParseLazy(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Encode(); got != text {
		t.Fatalf("untouched lazy record: %s", got)
	}
	if got := v.Get("name").Get("first").Text(); got != "Ann" {
		t.Errorf("name.first = %q", got)
	}
	bal, ok := v.Get("balance").Num()
	if !ok || bal.IsInt() || bal.Float64() != 10.5 {
		t.Errorf("balance = %v %v", bal, ok)
	}
	v.Set("balance", Number(bal.Sub(Int(3))))
	v.Get("tags").Append(Str("c"))
	v.Set("new", Strings([]string{"x"}))
	want := `{"id": "u1", "balance": 7.5, "tags": ["a", "b", "c"], "name": {"first": "Ann"}, "new": ["x"]}`
	if got := v.Encode(); got != want {
		t.Errorf("changed lazy record\n got  %s\n want %s", got, want)
	}
	if _, err := ParseLazy(`{"a": [1, 2}`); err == nil {
		t.Error("ParseLazy of a broken record: no error")
	}
	if _, err := ParseLazy(`{"a": 1} 2`); err == nil {
		t.Error("ParseLazy with trailing data: no error")
	}
}

// isFloatRepr's fast path agrees with the float round trip it skips.
func TestIsFloatRepr(t *testing.T) {
	cases := []string{"1.5", "47.84", "-0.5", "0.0", "-0.0", "5.0", "100.0", "0.1", "0.0001", "0.00001",
		"1.50", "01.5", "1.", ".5", "1e5", "1.5e3", "123456789012345.0", "1234567890123456.0",
		"0.123456789012345", "0.1234567890123456", "12345678901234.5", "123456789012345.6",
		"0.30000000000000004", "2.675", "1.2.3", "-", "1.0000000000000002", "9999999999999.99"}
	for _, c := range cases {
		if !isFloatRepr(c) {
			continue
		}
		f, err := strconv.ParseFloat(c, 64)
		if err != nil {
			t.Errorf("isFloatRepr(%q) but it is not a number", c)
			continue
		}
		if got := FloatRepr(f); got != c {
			t.Errorf("isFloatRepr(%q) but repr is %q", c, got)
		}
	}
	for _, c := range []string{"1.5", "47.84", "0.0001", "5.0", "123456789012345.0"} {
		if !isFloatRepr(c) {
			t.Errorf("isFloatRepr(%q) = false", c)
		}
	}
	for i := 0; i < 20000; i++ {
		f := float64(i*7919%1000003) / []float64{1, 10, 100, 1000, 7}[i%5]
		r := FloatRepr(f)
		if strings.Contains(r, "e") {
			continue
		}
		if !isFloatRepr(r) && len(strings.TrimLeft(strings.ReplaceAll(r, ".", ""), "-0")) <= 15 && f >= 1e-4 {
			t.Errorf("repr %q not recognized", r)
		}
	}
}

func TestDictOperations(t *testing.T) {
	o := Object()
	o.Set("a", Number(Int(1)))
	o.Set("b", Str("x"))
	o.Set("a", Number(Float(2))) // keeps its place
	o.Update(mustParse(t, `{"c": null, "b": true}`))
	o.Del("a")
	o.Del("missing")
	if got, want := o.Encode(), `{"b": true, "c": null}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if o.Len() != 2 || len(o.Keys()) != 2 || o.Get("zz") != nil || Str("s").Get("a") != nil {
		t.Error("Len, Keys or Get of a missing key")
	}
	var none *Value
	if none.Get("a") != nil || none.Text() != "" || none.IsStr("") || none.Truthy() || none.IsString() {
		t.Error("a nil value must read as absent")
	}
	for _, c := range []struct {
		in     string
		truthy bool
	}{{`0`, false}, {`0.0`, false}, {`2`, true}, {`""`, false}, {`"a"`, true}, {`[]`, false}, {`[0]`, true}, {`{}`, false}, {`null`, false}, {`false`, false}} {
		if got := mustParse(t, c.in).Truthy(); got != c.truthy {
			t.Errorf("bool(%s) = %v", c.in, got)
		}
	}
}

func TestEqualIsPythonEquality(t *testing.T) {
	eq := [][2]string{
		{`{"a": 1, "b": [1, 2.0]}`, `{"b": [1.0, 2], "a": 1.0}`},
		{`true`, `1`}, {`null`, `null`}, {`"x"`, `"x"`},
	}
	ne := [][2]string{
		{`{"a": 1}`, `{"a": 1, "b": 2}`}, {`[1, 2]`, `[2, 1]`}, {`"1"`, `1`}, {`null`, `false`}, {`{"a": 1}`, `{"b": 1}`},
	}
	for _, p := range eq {
		if !Equal(mustParse(t, p[0]), mustParse(t, p[1])) {
			t.Errorf("%s == %s: false", p[0], p[1])
		}
	}
	for _, p := range ne {
		if Equal(mustParse(t, p[0]), mustParse(t, p[1])) {
			t.Errorf("%s == %s: true", p[0], p[1])
		}
	}
	lazy, err := ParseLazy(`{"b": [1.0, 2], "a": 1.0}`)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(lazy, mustParse(t, `{"a": 1, "b": [1, 2.0]}`)) {
		t.Error("a lazy record must compare by its members' values")
	}
}

func TestNum(t *testing.T) {
	if got := Int(7).Sub(Int(10)).Abs().Text(); got != "3" {
		t.Errorf("abs(7 - 10) = %s", got)
	}
	if got := Int(2).Mul(Float(1.5)).Text(); got != "3.0" {
		t.Errorf("2 * 1.5 = %s", got)
	}
	if got := Float(0).Neg().Text(); got != "-0.0" {
		t.Errorf("-0.0 = %s", got)
	}
	if got := Float(2.675).Round2().Str(); got != "2.67" {
		t.Errorf("round(2.675, 2) = %s", got)
	}
	if got := Float(0.125).Round2().Str(); got != "0.12" {
		t.Errorf("round(0.125, 2) = %s", got)
	}
	if got := Int(5).Round2().Text(); got != "5" {
		t.Errorf("round(5, 2) = %s", got)
	}
	if !Int(5).Equal(Float(5)) || Int(5).Less(Float(5)) || !Int(4).Less(Float(4.5)) || !Int(0).IsZero() {
		t.Error("comparisons")
	}
	for in, want := range map[string]string{"12": "12", "12.0": "12.0", "1e2": "100.0", "-0": "0", "1E-7": "1e-07"} {
		if got := ParseNum(in).Text(); got != want {
			t.Errorf("ParseNum(%s) = %s, want %s", in, got, want)
		}
	}
	for f, want := range map[float64]string{1e22: "1e+22", 0.0001: "0.0001", 123456789012345678: "1.2345678901234568e+17", 1e16: "1e+16", 1e15: "1000000000000000.0"} {
		if got := FloatRepr(f); got != want {
			t.Errorf("repr(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestStrings(t *testing.T) {
	for in, want := range map[string]string{"x": "'x'", "it's": `"it's"`, `a\b` + "\n": `'a\\b\n'`, `'"`: `'\'"'`} {
		if got := StrRepr(in); got != want {
			t.Errorf("repr(%q) = %s, want %s", in, got, want)
		}
	}
	if got := KeyError("user_1").Error(); got != "'user_1'" {
		t.Errorf("KeyError = %s", got)
	}
	if got := Lower("İSTANBUL Ab"); got != "i\u0307stanbul ab" {
		t.Errorf("lower = %q", got)
	}
}

func TestCalculate(t *testing.T) {
	ok := map[string]string{
		"10 / 3": "3.33", "2 ** 10": "1024.0", "0.125 + 0": "0.12", "-7 // 2": "-4.0",
		"2 ** 100": "1.2676506002282294e+30", "135.24 - 153.23": "-17.99", "7 / 2": "3.5",
		"2 ** 0.5": "1.41", "10 ** 20 / 3": "3.333333333333333e+19", "  1+1": "2.0",
	}
	for e, want := range ok {
		got, err := Calculate(e)
		if err != nil || got != want {
			t.Errorf("Calculate(%q) = %q, %v; want %q", e, got, err, want)
		}
	}
	fails := map[string]string{
		"abc":         "invalid characters in expression",
		"(1 + 2":      "'(' was never closed (<string>, line 1)",
		"":            "invalid syntax (<string>, line 0)",
		"(-8) ** 0.5": "float() argument must be a string or a real number, not 'complex'",
		"()":          "float() argument must be a string or a real number, not 'tuple'",
		"0.0 ** -1":   "0.0 cannot be raised to a negative power",
	}
	for e, want := range fails {
		if _, err := Calculate(e); err == nil || err.Error() != want {
			t.Errorf("Calculate(%q) error %v, want %q", e, err, want)
		}
	}
	zero := map[string]string{
		"1 / 0": "division by zero", "7 // 0": "integer division or modulo by zero",
		"7.0 / 0": "float division by zero", "7.0 // 0": "float floor division by zero",
	}
	for e, want := range zero {
		_, err := Calculate(e)
		var dz *DivisionByZeroError
		if !errors.As(err, &dz) || err.Error() != want {
			t.Errorf("Calculate(%q) error %v, want DivisionByZeroError %q", e, err, want)
		}
	}
	if _, err := Calculate("0.0 ** -1"); errors.As(err, new(*DivisionByZeroError)) {
		t.Error("zero to a negative power is not a division")
	}
}

func mustParse(t *testing.T, s string) *Value {
	t.Helper()
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return v
}

// MemberJSON hands on a lazily parsed member's stored text as is (spacing
// included), encodes a parsed or assigned one, and says when there is none.
func TestMemberJSON(t *testing.T) {
	v, err := ParseLazy(`{"a": [1,  2], "b": {"c": "d"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := v.MemberJSON("a"); !ok || s != `[1,  2]` {
		t.Errorf("raw member: %q %v", s, ok)
	}
	v.Get("b").Set("e", Number(Int(1)))
	if s, ok := v.MemberJSON("b"); !ok || s != `{"c": "d", "e": 1}` {
		t.Errorf("parsed member: %q %v", s, ok)
	}
	if _, ok := v.MemberJSON("x"); ok {
		t.Error("a missing member")
	}
	if _, ok := Str("s").MemberJSON("a"); ok {
		t.Error("a member of a str")
	}
}

// A member that a tool reads but does not change is written back as
// stored (its text kept when it was parsed; spacing shows which path
// wrote it); a change anywhere inside it, by Set, Append or Del, has it
// encoded again, and only the changed parts.
func TestReadMembersWriteBackAsStored(t *testing.T) {
	text := `{"a": {"b": 1,  "c": [1,  {"d":  2}]}, "e": [3,  4], "f": {"g":  5}}`
	v, err := ParseLazy(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Encode(); got != text {
		t.Fatalf("untouched: %s", got)
	}
	a := v.Get("a")
	if n, _ := a.Get("c").Items()[1].Get("d").Num(); n.Float64() != 2 {
		t.Fatalf("a.c[1].d = %v", n)
	}
	v.Get("e")
	v.Get("f")
	if got := v.Encode(); got != text {
		t.Fatalf("read, not changed: %s", got)
	}
	a.Get("c").Items()[1].Set("d", Number(Int(5)))
	want := `{"a": {"b": 1, "c": [1, {"d": 5}]}, "e": [3,  4], "f": {"g":  5}}`
	if got := v.Encode(); got != want {
		t.Fatalf("nested Set\n got  %s\n want %s", got, want)
	}
	v.Get("e").Append(Number(Int(6)))
	v.Get("f").Del("g")
	want = `{"a": {"b": 1, "c": [1, {"d": 5}]}, "e": [3, 4, 6], "f": {}}`
	if got := v.Encode(); got != want {
		t.Fatalf("Append and Del\n got  %s\n want %s", got, want)
	}
}
