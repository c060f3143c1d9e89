package synth

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// The answer rules reject a right value said with other figures (an
// envpkg.Alone rule: "day 18 (record 587)" is not "18"), so the system
// message an agent gets must say so, under either toolset; agents that
// were not told lost right answers on held-out databases.
func TestRulesStateTheAnswerContract(t *testing.T) {
	for name, rules := range map[string]string{
		"domain": Policy("shop", &toolgen.Spec{}),
		"crud":   crudRules,
	} {
		if !strings.Contains(rules, answering) {
			t.Errorf("%s toolset's rules do not state how to answer:\n%s", name, rules)
		}
	}
}
