package runtime

import (
	"strings"
	"testing"
)

// The environment's cache of initial records' canonical forms answers
// "same JSON value?" as comparing fresh canonical forms does, for texts it
// has and has not seen, declines what appendCanon declines, and stays
// within its bound.
func TestInitCanonsAnswerAsAppendCanon(t *testing.T) {
	var c initCanons
	cases := []struct {
		rec, init string
		same      bool
	}{
		{`{"a": 1, "b": [1.0, "x"]}`, `{"b":[1.0,"x"],"a":1}`, true},
		{`{"a": 1, "b": [1.0, "x"]}`, `{"b":[1.0,"x"],"a":1}`, true}, // now cached
		{`{"a": 1, "b": [1.0, "x"]}`, `{"b":[1,"x"],"a":1}`, false},
		{`{"a": "\u00e9"}`, `{"a": "é"}`, true},
		{`{"a": 2}`, `{"b":[1.0,"x"],"a":1}`, false},
	}
	for _, tc := range cases {
		canon, ok := appendCanon([]byte("j"), []byte(tc.rec))
		if !ok {
			t.Fatalf("appendCanon(%s) declined", tc.rec)
		}
		same, ok := c.sameAsInit(canon, []byte(tc.init))
		if !ok || same != tc.same {
			t.Errorf("sameAsInit(%s, %s) = %v %v, want %v", tc.rec, tc.init, same, ok, tc.same)
		}
		got, gotSame, err := judgeRecord([]byte(tc.rec), []byte(tc.init), true, &c)
		wantCanon, wantSame, _ := judgeRecord([]byte(tc.rec), []byte(tc.init), true, nil)
		if err != nil || string(got) != string(wantCanon) || gotSame != wantSame || gotSame != tc.same {
			t.Errorf("judgeRecord(%s, %s) with the cache: %q %v %v; without: %q %v", tc.rec, tc.init, got, gotSame, err, wantCanon, wantSame)
		}
	}
	if _, ok := c.sameAsInit([]byte(`j{}`), []byte("\xff")); ok {
		t.Error("an initial text appendCanon declines: answered")
	}
	if _, ok := c.sameAsInit([]byte(`r{}`), []byte(`{}`)); ok {
		t.Error("a record without the fast form: answered")
	}
	big := `{"x": "` + strings.Repeat("y", 1<<20) + `"}`
	for i := range 8 {
		if _, ok := c.of([]byte(big[:len(big)-2-i] + `"}`)); !ok {
			t.Fatal("a large record declined")
		}
		if c.bytes > maxInitCanonBytes {
			t.Fatalf("%d bytes kept, bound %d", c.bytes, maxInitCanonBytes)
		}
	}
}
