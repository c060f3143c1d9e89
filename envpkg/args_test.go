package envpkg

import "testing"

func TestCallArguments(t *testing.T) {
	for in, want := range map[string]string{
		``: `{}`, `null`: `{}`, ` {"a":1} `: `{"a":1}`, `"{\"a\": 1}"`: `{"a": 1}`, `"  "`: `{}`, `"not json"`: `not json`, `[1]`: `[1]`,
	} {
		if got := string(CallArguments([]byte(in))); got != want {
			t.Errorf("CallArguments(%s) = %s, want %s", in, got, want)
		}
	}
}
