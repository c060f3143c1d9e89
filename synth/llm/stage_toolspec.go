package llm

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/wasmenv/wasmenv/compiler"
)

// The toolspec stage: the tools' names, arguments and the rules.

var toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var argTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true,
	"array of string": true, "array of integer": true}

func (r *envRun) runToolSpec(ctx context.Context) error {
	type specOut struct {
		Rules string     `json:"rules"`
		Tools []toolSpec `json:"tools"`
	}
	var out specOut
	err := runStage(ctx, r, stageCall{stage: StageToolSpec, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *specOut) verdict {
		probs := specProblems(o.Tools)
		return verdict{Problems: probs, Score: float64(len(o.Tools) - len(probs))}
	})
	r.rules, r.spec = r.withClockRule(out.Rules), out.Tools
	return err
}

// specProblems checks the tools' names, arguments and types.
func specProblems(tools []toolSpec) []string {
	var probs []string
	seen := map[string]bool{}
	for _, t := range tools {
		switch {
		case !toolNameRE.MatchString(t.Name):
			probs = append(probs, fmt.Sprintf("tool name %q must be snake_case", t.Name))
		case compiler.ToolName(goName(t.Name)) != t.Name:
			probs = append(probs, fmt.Sprintf("tool name %q is not the name of any Go function (tool names come from Go names, and a digit or a one-letter word never follows \"_\"): use %q",
				t.Name, compiler.ToolName(goName(t.Name))))
		}
		if seen[t.Name] {
			probs = append(probs, fmt.Sprintf("tool %s is listed twice", t.Name))
		}
		seen[t.Name] = true
		for _, a := range t.Arguments {
			if !toolNameRE.MatchString(a.Name) {
				probs = append(probs, fmt.Sprintf("tool %s: argument name %q must be snake_case", t.Name, a.Name))
			}
			if !argTypes[a.Type] {
				probs = append(probs, fmt.Sprintf("tool %s: argument %s has type %q; use one of string, integer, number, boolean, array of string, array of integer", t.Name, a.Name, a.Type))
			}
		}
	}
	return probs
}

// goName is the exported Go name that compiler.ToolName turns into snake:
// with initialisms (UserID) where that still compiles back to snake, else
// each word capitalised (UserIdX: "UserIDX" would be user_idx). For a name
// no Go name gives (get_item_2, a_b) it is the nearest, and specProblems
// refuses such names.
func goName(snake string) string {
	words := strings.FieldsFunc(snake, func(r rune) bool { return r == '_' })
	var plain, upper strings.Builder
	for _, w := range words {
		title := strings.ToUpper(w[:1]) + w[1:]
		plain.WriteString(title)
		switch strings.ToUpper(w) {
		case "ID", "URL", "API", "JSON", "SQL", "HTTP", "UUID":
			upper.WriteString(strings.ToUpper(w))
		default:
			upper.WriteString(title)
		}
	}
	if g := upper.String(); compiler.ToolName(g) == snake {
		return g
	}
	return plain.String()
}
