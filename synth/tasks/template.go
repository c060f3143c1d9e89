package tasks

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
)

// How the driver sorts and counts what it found: a task's class for the
// quotas (plain, a change, a question) and its template for the cap.

// classOf sorts a task for the driver's quotas: plain (see plain), a
// change that needs reasoning (refusals included: the user asked for a
// change), or a question that does.
func classOf(t envpkg.Task, kind string) int {
	switch {
	case plain(t, kind):
		return 0
	case t.Answer == nil || strings.HasPrefix(kind, "refuse") || changesOf(t) > 0:
		return 1
	}
	return 2
}

// changesOf counts the rows a task's checks say it changes.
func changesOf(t envpkg.Task) int {
	changes := 0
	for _, c := range t.Checks {
		if !c.Guard {
			changes++
		}
	}
	return changes
}

// plain reports a task that asks for no reasoning past finding one row: not
// a refusal (where the policy, not the request, decides), fewer than two
// rows changed, fewer than four calls.
func plain(t envpkg.Task, kind string) bool {
	if strings.HasPrefix(kind, "refuse") || reasoning(kind) {
		return false
	}
	changes := 0
	for _, c := range t.Checks {
		if !c.Guard {
			changes++
		}
	}
	return changes < 2 && len(t.Calls) < 4
}

// reasoning: kind is one of the shapes made to need reasoning, whatever
// its length (a choice across a reference, arithmetic over several rows,
// two goals: pick.go, arith.go, goals.go).
func reasoning(kind string) bool {
	for _, p := range []string{"pick-", "arith-", "goals-"} {
		if strings.HasPrefix(kind, p) {
			return true
		}
	}
	return false
}

// shape is what a task asks or changes: its kind, last call, and the
// argument names of that call (a change) or the column asked for (a
// question): "the min salary of the job of the employee X" nineteen times
// reads as one template.
func shape(t envpkg.Task, kind string, c *chain) string {
	if len(t.Calls) == 0 {
		return ""
	}
	if c.reason != "" {
		// A composed task is the same task only when the user reasons
		// the same way: the same condition choosing as many rows, the
		// same branch, the same figure asked (composedShape).
		return kind + " " + t.Calls[len(t.Calls)-1].Name + " " + c.asked + " " + c.reason
	}
	if t.Answer != nil {
		return kind + " " + t.Calls[len(t.Calls)-1].Name + " " + c.asked
	}
	last := t.Calls[len(t.Calls)-1]
	var args map[string]json.RawMessage
	if json.Unmarshal(last.Arguments, &args) != nil {
		return ""
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	// A change to three rows (an order placed with three lines) is not
	// the template of a change to one.
	changed := 0
	for _, ch := range t.Checks {
		if !ch.Guard {
			changed++
		}
	}
	return fmt.Sprintf("%s %s %s [%d rows changed]", kind, last.Name, strings.Join(names, ","), changed)
}

// coarseShape is a task's shape as a player sees it across the set: its
// kind and how many calls it takes, whatever its condition or column.
func coarseShape(t envpkg.Task, kind string) string {
	return fmt.Sprintf("%s %d", kind, len(t.Calls))
}

func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}
