package llm

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
)

// goName is the inverse of compiler.ToolName wherever a Go name can give
// the tool name: the repair hint "write an exported func X" must name the
// function that compiles to the spec's tool.
func TestGoNameInvertsToolName(t *testing.T) {
	for _, name := range []string{"get_item", "user_id", "get_api_key", "http2_server", "user_id_x",
		"list_v2_items", "get_item2", "find_json_url", "sql_id_lookup"} {
		g := goName(name)
		if got := compiler.ToolName(g); got != name {
			t.Errorf("goName(%q) = %q, which compiles to %q", name, g, got)
		}
	}
}

// A name no Go function compiles to (a digit or a one-letter word after
// "_") is refused at the spec stage with the name to use instead: the hint
// for get_item_2 asked for GetItem2, which is get_item2.
func TestSpecRefusesNamesNoFunctionHas(t *testing.T) {
	probs := specProblems([]toolSpec{{Name: "get_item_2"}, {Name: "get_item"}, {Name: "a_b"}})
	if len(probs) != 2 || !strings.Contains(probs[0], `"get_item_2"`) || !strings.Contains(probs[0], `"get_item2"`) ||
		!strings.Contains(probs[1], `"a_b"`) {
		t.Errorf("problems %q", probs)
	}
}
