package rl

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Random makes schema-valid random calls whose values are drawn from what
// the conversation has shown (words of the instruction, values in earlier
// tool outputs), and answers with a random observed value now and then. It
// is deterministic in (task, seed, turn): a floor for rewards and a cheap
// policy for throughput runs.
type Random struct {
	// StopProb is the chance of answering instead of calling, per turn
	// after the first (default 0.15).
	StopProb float64
	// MaxCalls is the most calls per turn (default 2).
	MaxCalls int

	schemas sync.Map // "env\x00tool" → *schema
}

type schema struct {
	Type       any                `json:"type"`
	Enum       []any              `json:"enum"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
}

var wordRE = regexp.MustCompile(`[#\w][\w@.\-#]*\w`)

// Act implements Policy.
func (p *Random) Act(_ context.Context, t *Turn) (Reply, error) {
	h := fnv.New64a()
	h.Write([]byte(t.Env))
	h.Write([]byte{0})
	if t.Task != nil {
		h.Write([]byte(t.Task.ID))
	}
	rng := rand.New(rand.NewPCG(uint64(t.Seed)^h.Sum64(), uint64(t.Number)))
	seen := observe(t.Messages)
	stop := p.StopProb
	if stop == 0 {
		stop = 0.15
	}
	if t.Number > 0 && rng.Float64() < stop || len(t.Tools) == 0 {
		return Reply{Message: Message{Role: RoleAssistant, Content: pick(rng, seen.strings, "Done.")}}, nil
	}
	tools, meta := p.callable(t)
	if len(tools) == 0 { // meta-tools, nothing listed yet
		return p.reply(t, []FunctionCall{{Name: MetaListTools, Arguments: "{}"}}), nil
	}
	maxCalls := p.MaxCalls
	if maxCalls == 0 {
		maxCalls = 2
	}
	var calls []FunctionCall
	for range 1 + rng.IntN(maxCalls) {
		tool := tools[rng.IntN(len(tools))]
		s := p.schema(t.Env, tool.Name, tool.InputSchema)
		args, _ := json.Marshal(seen.value(rng, s, 0))
		if meta {
			calls = append(calls, WrapCall(t.Tools, tool.Name, string(args)))
		} else {
			calls = append(calls, FunctionCall{Name: tool.Name, Arguments: string(args)})
		}
	}
	return p.reply(t, calls), nil
}

func (p *Random) reply(t *Turn, calls []FunctionCall) Reply {
	m := Message{Role: RoleAssistant}
	for i, c := range calls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: fmt.Sprintf("call_%d_%d", t.Number, i), Type: "function", Function: c})
	}
	return Reply{Message: m}
}

// callable lists the tools the policy can call: those on offer, or, with
// the meta-tools, those a list_tools call has shown.
func (p *Random) callable(t *Turn) ([]envpkg.Tool, bool) {
	meta := false
	var tools []envpkg.Tool
	for _, o := range t.Tools {
		if o.Function.Name == MetaCallTool {
			meta = true
			continue
		}
		if o.Function.Name != MetaListTools {
			tools = append(tools, envpkg.Tool{Name: o.Function.Name, InputSchema: o.Function.Parameters})
		}
	}
	if !meta {
		return tools, false
	}
	for _, m := range t.Messages {
		var listed []envpkg.Tool
		if m.Role == RoleTool && strings.HasPrefix(m.Content, "[") && json.Unmarshal([]byte(m.Content), &listed) == nil && len(listed) > 0 && listed[0].Name != "" {
			return listed, true
		}
	}
	return nil, true
}

func (p *Random) schema(env, tool string, raw json.RawMessage) *schema {
	key := env + "\x00" + tool
	if s, ok := p.schemas.Load(key); ok {
		return s.(*schema)
	}
	s := &schema{}
	json.Unmarshal(raw, s)
	p.schemas.Store(key, s)
	return s
}

// observed holds the values the conversation has shown.
type observed struct {
	strings []string
	numbers []float64
}

const maxObserved = 512

func observe(msgs []Message) *observed {
	o := &observed{}
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			o.strings = append(o.strings, wordRE.FindAllString(m.Content, 64)...)
		case RoleTool:
			var v any
			if json.Unmarshal([]byte(m.Content), &v) == nil {
				o.walk(v)
			}
		}
	}
	return o
}

func (o *observed) walk(v any) {
	if len(o.strings)+len(o.numbers) > maxObserved {
		return
	}
	switch x := v.(type) {
	case string:
		o.strings = append(o.strings, x)
	case float64:
		o.numbers = append(o.numbers, x)
	case []any:
		for _, e := range x {
			o.walk(e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			o.walk(x[k])
		}
	}
}

func pick[T any](rng *rand.Rand, from []T, def T) T {
	if len(from) == 0 {
		return def
	}
	return from[rng.IntN(len(from))]
}

// value draws a value that fits s.
func (o *observed) value(rng *rand.Rand, s *schema, depth int) any {
	if s == nil {
		return nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[rng.IntN(len(s.Enum))]
	}
	switch typeOf(s) {
	case "string":
		return pick(rng, o.strings, "x")
	case "integer":
		return int64(o.number(rng, s))
	case "number":
		return o.number(rng, s)
	case "boolean":
		return rng.IntN(2) == 0
	case "array":
		var out []any
		if depth < 4 {
			for range 1 + rng.IntN(2) {
				out = append(out, o.value(rng, s.Items, depth+1))
			}
		}
		return out
	case "object":
		out := map[string]any{}
		if depth > 4 {
			return out
		}
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		// Sorted, so the draws are the same on every run.
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if req[name] || rng.IntN(3) == 0 {
				out[name] = o.value(rng, s.Properties[name], depth+1)
			}
		}
		return out
	}
	return pick(rng, o.strings, "x")
}

func (o *observed) number(rng *rand.Rand, s *schema) float64 {
	lo, hi := 0.0, 10.0
	if s.Minimum != nil {
		lo = *s.Minimum
		hi = max(hi, lo+10)
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	if len(o.numbers) > 0 && rng.IntN(2) == 0 {
		if n := o.numbers[rng.IntN(len(o.numbers))]; n >= lo && n <= hi {
			return n
		}
	}
	// The span is bounded before the integer draw: a schema's maximum may
	// be any JSON number (1e300), and int(1e300) is not a bound IntN takes.
	span := hi - lo
	if !(span >= 1) { // NaN, or max < min + 1
		span = 1
	}
	span = min(span, 1<<53) // +Inf included; exact as a float64 and an int64
	n := lo + float64(rng.Int64N(int64(span)+1))
	if n > hi && lo <= hi {
		n = hi
	}
	return n
}

func typeOf(s *schema) string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && x != "null" {
				return x
			}
		}
	}
	if s.Properties != nil {
		return "object"
	}
	return ""
}
