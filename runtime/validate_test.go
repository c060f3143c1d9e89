package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The hot-path validator never accepts what jsonschema refuses, and
// accepts most of what it accepts (else it would be no hot path): random
// documents shaped by each tool's schema, valid and broken, through both.
func TestFastSchemaAgreesWithJSONSchema(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	allSlow, allFast := 0, 0
	defer func() {
		if allFast*2 < allSlow {
			t.Errorf("fast path accepts %d of %d valid documents in all", allFast, allSlow)
		}
	}()
	for _, env := range []string{"mini", "types", "edge", "history"} {
		e := loadEnv(t, env)
		for i, tool := range e.Tools() {
			fast := e.fast[i]
			if fast == nil {
				t.Errorf("%s/%s: schema not compiled for the hot path: %s", env, tool.Name, tool.InputSchema)
				continue
			}
			var schema any
			json.Unmarshal(tool.InputSchema, &schema)
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			slowOK, fastOK := 0, 0
			for range n {
				doc := genDoc(rng, schema.(map[string]any), 0)
				b, _ := json.Marshal(doc)
				b = mutate(rng, b)
				slow := slowValid(e.schemas[i], b)
				if fast.valid(b) {
					fastOK++
					if !slow {
						t.Errorf("%s/%s: fast path accepts what jsonschema refuses: %s", env, tool.Name, b)
					}
				}
				if slow {
					slowOK++
				}
			}
			if slowOK >= 20 && fastOK*2 < slowOK {
				t.Errorf("%s/%s: fast path accepts %d of %d valid documents", env, tool.Name, fastOK, slowOK)
			}
			allSlow, allFast = allSlow+slowOK, allFast+fastOK
		}
	}
}

func slowValid(s *jsonschema.Schema, b []byte) bool {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	return err == nil && s.Validate(doc) == nil
}

// genDoc makes a value that usually fits the schema.
func genDoc(rng *rand.Rand, s map[string]any, depth int) any {
	if depth > 4 || rng.IntN(40) == 0 {
		return []any{nil, "x", 1.5, true, -3, map[string]any{}, []any{1}}[rng.IntN(7)]
	}
	if e, ok := s["enum"].([]any); ok {
		if rng.IntN(8) == 0 {
			return "not-in-enum"
		}
		return e[rng.IntN(len(e))]
	}
	switch s["type"] {
	case "string":
		return []string{"", "a", "héllo", "quote\"d", "tab\t", "日本", "back\\slash", strings.Repeat("z", 40)}[rng.IntN(8)]
	case "boolean":
		return rng.IntN(2) == 0
	case "integer":
		lo, hi := -1e12, 1e12
		if v, ok := s["minimum"].(float64); ok {
			lo = v
		}
		if v, ok := s["maximum"].(float64); ok {
			hi = v
		}
		switch rng.IntN(30) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return hi + 1
		case 3:
			return json.Number("9223372036854775808")
		case 4:
			return 2.0
		}
		return float64(rng.IntN(2000) - 1000)
	case "number":
		return []any{0.5, -2, 1e300, json.Number("1E3"), 7}[rng.IntN(5)]
	case "array":
		items, _ := s["items"].(map[string]any)
		out := []any{}
		for range rng.IntN(4) {
			out = append(out, genDoc(rng, items, depth+1))
		}
		return out
	case "object":
		out := map[string]any{}
		props, _ := s["props"].(map[string]any)
		if p, ok := s["properties"].(map[string]any); ok {
			props = p
		}
		for _, k := range slices.Sorted(maps.Keys(props)) { // the same documents every run
			if rng.IntN(5) > 0 {
				out[k] = genDoc(rng, props[k].(map[string]any), depth+1)
			}
		}
		if extra, ok := s["additionalProperties"].(map[string]any); ok {
			for i := range rng.IntN(3) {
				out[fmt.Sprint("k", i)] = genDoc(rng, extra, depth+1)
			}
		}
		if rng.IntN(10) == 0 {
			out["unexpected"] = 1
		}
		return out
	}
	return genDoc(rng, map[string]any{"type": []string{"string", "integer", "object", "array"}[rng.IntN(4)]}, depth+1)
}

// mutate sometimes breaks the document's syntax or spelling.
func mutate(rng *rand.Rand, b []byte) []byte {
	switch rng.IntN(12) {
	case 0:
		return b[:rng.IntN(len(b)+1)]
	case 1:
		return append(b, " x"...)
	case 2:
		return bytes.Replace(b, []byte(":"), []byte(": "), -1)
	case 3:
		if i := bytes.IndexByte(b, ','); i > 0 {
			// a duplicate of the first member
			if j := bytes.IndexByte(b, '{'); j >= 0 && j < i {
				return append(append(append([]byte{}, b[:i]...), ','), b[j+1:]...)
			}
		}
	case 4:
		return bytes.Replace(b, []byte("1"), []byte("01"), 1)
	}
	return b
}

// BenchmarkValidate compares the hot-path validator with jsonschema on a
// point read's arguments.
func BenchmarkValidate(b *testing.B) {
	e := loadBenchEnv(b)
	i := e.tools["get_order"]
	args := []byte(`{"order_id":1234}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !e.fast[i].valid(args) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("jsonschema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !slowValid(e.schemas[i], args) {
				b.Fatal("refused")
			}
		}
	})
}
