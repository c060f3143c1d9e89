package runtime

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// canonSeeds are JSON texts where a hand-written canonical form could part
// from encoding/json's: escapes, surrogates (paired, lone, reversed),
// duplicate keys, keys that sort differently escaped, HTML characters,
// U+2028, control characters, numbers as written, whitespace, nesting,
// and texts that are not JSON at all.
var canonSeeds = []string{
	`{"b":1,"a":[1,2.50,-0,1e5,1E-5,0.0],"c":{"z":null,"y":true,"x":false}}`,
	`{"a":1,"a":2}`, `{"a":{"x":1},"a":[2]}`, `{"<":1,"\u003c":2,">":3,"&":4}`,
	`"\u0041\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\ud83d\ude00\ud83d"`,
	`"a\u2028b\u2029c"`, "\"a\u2028b\"", `"\b\f\n\r\t\u0000\u001f\u007f\/"`, `"<script>&amp;</script>"`,
	`{"é":1,"e":2,"\u00e9":3,"E":4,"":5}`, "\t[ 1 ,\n2 ] \r\n", `[]`, `{}`, `[[[[]]]]`, `[{}]`,
	`12345678901234567890123`, `-0.000e+00`, `"\uFFFD"`, `"\ufffd"`, `"\uDBFF\uDFFF"`,
	`{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `"\x"`, `"\u12"`, "\"a\x01\"", `nul`, `truex`, `1 2`, `{"a"}`,
	`{"a":1 "b":2}`, `"unterminated`, `[1}`, ``, ` `, "\"\xff\"", `{"k":"\ud800\udc00\udbff"}`,
}

// checkCanon requires appendCanon, where it answers, to equal
// encoding/json's canonical form.
func checkCanon(t *testing.T, src []byte) {
	t.Helper()
	got, ok := appendCanon([]byte("j"), src)
	if !ok {
		return
	}
	if !json.Valid(src) { // judgeRecord takes the fast form for json.Valid
		t.Fatalf("%q: fast path %q for a text json.Valid refuses", src, got)
	}
	want, err := slowCanonRecord(src)
	if err != nil {
		t.Fatalf("%q: fast path %q, encoding/json: %v", src, got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\nfast %q\nwant %q", src, got, want)
	}
}

func TestCanonMatchesEncodingJSON(t *testing.T) {
	accepted := 0
	for _, s := range canonSeeds {
		checkCanon(t, []byte(s))
		if _, ok := appendCanon(nil, []byte(s)); ok {
			accepted++
		}
		if _, ok := appendCanon(nil, []byte(s)); ok != (json.Valid([]byte(s)) && utf8.ValidString(s)) {
			t.Errorf("%q: fast path %v, json.Valid %v", s, ok, json.Valid([]byte(s)))
		}
	}
	if accepted < 25 {
		t.Errorf("the fast path took %d of %d seeds", accepted, len(canonSeeds))
	}
	// Data we did not write: every record of the τ-bench data files.
	files, _ := filepath.Glob(filepath.Join("..", "envs", "taubench-*", "data", "*.json"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var recs map[string]json.RawMessage
		if json.Unmarshal(b, &recs) != nil {
			var list []json.RawMessage
			if err := json.Unmarshal(b, &list); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, r := range list {
				checkCanon(t, r)
				n++
			}
			continue
		}
		for _, r := range recs {
			checkCanon(t, r)
			n++
		}
	}
	t.Logf("%d τ-bench records", n)
}

// sameJSON answers as encoding/json's DeepEqual of the decoded values.
func TestSameJSONMatchesDecoding(t *testing.T) {
	for _, a := range canonSeeds {
		for _, b := range canonSeeds {
			checkSame(t, []byte(a), []byte(b))
		}
	}
}

func checkSame(t *testing.T, a, b []byte) {
	t.Helper()
	x, errx := decodeJSON(a)
	y, erry := decodeJSON(b)
	want := errx == nil && erry == nil && reflect.DeepEqual(x, y)
	if !utf8.Valid(a) || !utf8.Valid(b) {
		want = bytes.Equal(a, b)
	}
	if got := sameJSON(a, b); got != want {
		t.Fatalf("sameJSON(%q, %q) = %v, decoding says %v", a, b, got, want)
	}
}

func FuzzCanonMatchesEncodingJSON(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s), []byte(`{"a":1}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkCanon(t, a)
		checkSame(t, a, b)
		checkSame(t, a, a)
	})
}
