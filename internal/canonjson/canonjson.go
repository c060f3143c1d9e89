// Package canonjson writes JSON in one canonical form, so that two
// encodings of one value compare equal as strings: object keys sorted, no
// insignificant space, numbers as written (not rounded through float64),
// HTML characters not escaped.
//
// Arguments is the form for tool-call arguments, where a null member means
// the member is absent (that is how the runtime and the generated tools
// read arguments): {"a":null} and {} are one call. The rollout reward's
// trajectory match, the gates' duplicate-call check and synth/llm's
// messages all use it.
package canonjson

import (
	"bytes"
	"encoding/json"
)

// Encode returns raw in canonical form, or raw unchanged when it is not
// one JSON value.
func Encode(raw []byte) string {
	v, ok := decode(raw)
	if !ok {
		return string(raw)
	}
	return encode(v)
}

// Arguments is Encode for tool-call arguments: members of a top-level
// object whose value is null are dropped, as absent.
func Arguments(raw []byte) string {
	v, ok := decode(raw)
	if !ok {
		return string(raw)
	}
	if m, isObj := v.(map[string]any); isObj {
		for k, x := range m {
			if x == nil {
				delete(m, k)
			}
		}
	}
	return encode(v)
}

func decode(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err == nil { // more after the value: not one value
		return nil, false
	}
	return v, true
}

func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil { // cannot fail on a decoded value
		return ""
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
