package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/wasmenv/wasmenv/internal/canonjson"
)

// The tooltests stage: a positive and negative call per tool, run against
// the code stage's tools.

// toolTest is a generated positive ("ok") or negative ("error") call.
type toolTest struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Expect    string          `json:"expect"`
	Why       string          `json:"why"`
}

func (t toolTest) String() string {
	return fmt.Sprintf("%s(%s) expecting %s (%s)", t.Tool, canonjson.Encode(t.Arguments), t.Expect, t.Why)
}

func (r *envRun) runToolTests(ctx context.Context) error {
	type testsOut struct {
		Tests []toolTest `json:"tests"`
	}
	var out testsOut
	err := runStage(ctx, r, stageCall{stage: StageToolTests, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *testsOut) verdict {
		var probs []string
		pos := map[string]bool{}
		for i, t := range o.Tests {
			if !slices.ContainsFunc(r.spec, func(s toolSpec) bool { return s.Name == t.Tool }) {
				probs = append(probs, fmt.Sprintf("test %d names tool %q, which the spec does not have", i+1, t.Tool))
			}
			if t.Expect == "ok" {
				pos[t.Tool] = true
			}
		}
		for _, s := range r.spec {
			if !pos[s.Name] {
				probs = append(probs, fmt.Sprintf("tool %s has no positive test (expect \"ok\")", s.Name))
			}
		}
		return verdict{Problems: probs, Score: float64(len(o.Tests) - len(probs))}
	})
	r.tests = out.Tests
	return err
}
