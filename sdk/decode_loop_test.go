package sdk

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// loopAny decodes like Decoder.Any but through the loop forms generated
// decoders use (ObjectStart/ObjectKey, ArrayStart/ArrayNext).
func loopAny(d *Decoder) (any, error) {
	switch d.Kind() {
	case '{':
		m := map[string]any{}
		if err := d.ObjectStart(); err != nil {
			return nil, err
		}
		for first := true; ; first = false {
			k, ok, err := d.ObjectKey(first)
			if err != nil {
				return m, err
			}
			if !ok {
				return m, nil
			}
			key := string(k)
			v, err := loopAny(d)
			m[key] = v
			if err != nil {
				return m, err
			}
		}
	case '[':
		a := []any{}
		if err := d.ArrayStart(); err != nil {
			return nil, err
		}
		for first := true; ; first = false {
			ok, err := d.ArrayNext(first)
			if err != nil {
				return a, err
			}
			if !ok {
				return a, nil
			}
			v, err := loopAny(d)
			a = append(a, v)
			if err != nil {
				return a, err
			}
		}
	}
	return d.Any()
}

// The loop forms accept, refuse and decode exactly what Object and Array
// do, with the same error messages and offsets.
func TestLoopDecodingMatchesCallbacks(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `{"a":1}`, `{"a":1,"b":[1,2,{"c":null}]}`, ` { "a" : [ ] , "b" : { } } `,
		`{"a\u00e9\n":"x\"y","a\u00e9\n":2}`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":1 "b":2}`,
		`[1,]`, `[,1]`, `[1 2]`, `{"a":[}`, `{"a":1]`, `[1}`, `{`, `[`, `{"a":`, `{"a"`, `{1:2}`,
		`{"\ud83d\ude00":[true,false,null,"",-0.5e3]}`, `{"a":{"b":{"c":{"d":[[[]]]}}}}`, `{"a":1}}`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`{}[],:"a1 \-.enul`)
	for range 3000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		docs = append(docs, string(b))
	}
	for _, doc := range docs {
		d1, d2 := NewDecoder([]byte(doc)), NewDecoder([]byte(doc))
		v1, err1 := d1.Any()
		v2, err2 := loopAny(d2)
		if e1, e2 := errText(err1), errText(err2); e1 != e2 || (err1 == nil && !reflect.DeepEqual(v1, v2)) || d1.i != d2.i {
			t.Errorf("%q: callbacks %v %q at %d, loop %v %q at %d", doc, v1, e1, d1.i, v2, e2, d2.i)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// oldInt is Decoder.Int before its fast path: the number's text parsed.
func oldInt(d *Decoder) (int64, error) {
	s, err := d.number()
	if err != nil {
		return 0, err
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, d.errorf("expected integer, got %s", s)
	}
	return int64(f), nil
}

// Int's allocation-free path agrees with parsing the number's text.
func TestIntFastPathAgrees(t *testing.T) {
	docs := []string{"0", "-0", "7", "-7", "01", "-01", "00", "123456789012345678", "1234567890123456789",
		"-9223372036854775808", "9223372036854775807", "9223372036854775808", "1.0", "1e3", "1E3", "2.5",
		"-", "", " 42 ", "42,", "42}", "42]", "4x", "-x", "1.", ".5", "99999999999999999999"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		b := make([]byte, 1+rng.IntN(21))
		for i := range b {
			b[i] = "0123456789-.eE ,}"[rng.IntN(17)]
		}
		docs = append(docs, string(b))
	}
	for _, doc := range docs {
		d1, d2 := NewDecoder([]byte(doc)), NewDecoder([]byte(doc))
		v1, err1 := d1.Int()
		v2, err2 := oldInt(d2)
		if v1 != v2 || errText(err1) != errText(err2) || (err1 == nil && d1.i != d2.i) {
			t.Errorf("%q: Int %d %v at %d, text %d %v at %d", doc, v1, err1, d1.i, v2, err2, d2.i)
		}
	}
}
