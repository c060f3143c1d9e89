package wire

import (
	"math"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []any{nil, int64(-7), int64(math.MaxInt64), 3.25, "héllo", []byte{0, 1, 2}}
	var b []byte
	for _, v := range in {
		var err error
		if b, err = AppendValue(b, v); err != nil {
			t.Fatal(err)
		}
	}
	b = AppendString(b, "tail")
	r := NewReader(b)
	for i, want := range in {
		if got := r.Value(); !reflect.DeepEqual(got, want) {
			t.Errorf("value %d: got %#v want %#v", i, got, want)
		}
	}
	if s := r.String(); s != "tail" || r.Err() != nil || r.Len() != 0 {
		t.Fatalf("tail %q err %v len %d", s, r.Err(), r.Len())
	}
}

func TestAppendValueKinds(t *testing.T) {
	for _, v := range []any{1, int32(2), uint8(3), true, float32(1.5)} {
		if _, err := AppendValue(nil, v); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
	if _, err := AppendValue(nil, struct{}{}); err == nil {
		t.Error("struct parameter accepted")
	}
}

func TestTruncated(t *testing.T) {
	b := AppendText(nil, "hello world")
	for n := 0; n < len(b); n++ {
		r := NewReader(b[:n])
		r.Value()
		if r.Err() == nil {
			t.Fatalf("prefix %d decoded without error", n)
		}
	}
	r := NewReader([]byte{9})
	r.Value()
	if r.Err() == nil {
		t.Fatal("unknown tag accepted")
	}
}
