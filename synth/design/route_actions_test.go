package design_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestModelRouteActionTasks (round 9, storefix): over the recorded design
// of envs/store (testdata/store's design answers; the wording is left
// out, its prompts carry the tasks of the generator of the day), the
// tasks call the designed actions. Round 9's generator made 36 tasks of
// which one called a designed action: cancel_order moves an order only
// from pending, and the walker called it on the rows it reached (a
// delivered order, a customer's two orders over some total) without
// asking its rule first, so the action refused, the call failed, and the
// walk was a dead end. The rule's refusals are tasks (the policy's), and
// the allowed rows of a group are changed.
func TestModelRouteActionTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := llmreplay.New(t, "testdata/store")
	stage := &design.Stage{Client: chatapi.New(srv.URL+"/v1", llmreplay.Key, 1), Model: relayedModel, NoWording: true}
	res, err := synth.FromDB(context.Background(), "../../envs/store", synth.Options{Out: filepath.Join(t.TempDir(), "store"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain, Design: stage})
	if err != nil {
		t.Fatal(err)
	}
	rep := stage.Report()
	if len(rep.Kept) != 5 || !slices.Contains(rep.Kept, "cancel_order") {
		t.Fatalf("the recorded design: kept %v", rep.Kept)
	}
	if rep.Wording.Prompts != 0 {
		t.Fatalf("NoWording sent %d wording prompts", rep.Wording.Prompts)
	}
	kinds := res.Summary.Tasks.ByKind
	calling, refusedByState := 0, 0
	for _, task := range res.Tasks {
		kind := kindOf(task.ID, kinds)
		if slices.ContainsFunc(task.Calls, func(c envpkg.Call) bool { return slices.Contains(rep.Kept, c.Name) }) {
			calling++
		}
		if kind == "refuse-action" || kind == "refuse-all-action" {
			refusedByState++
			if task.Answer == nil || len(task.Checks) == 0 || !task.Checks[0].Guard {
				t.Errorf("%s: a refusal that is not answered with nothing changed: %+v", task.ID, task)
			}
		}
	}
	t.Logf("%d tasks; final steps: %s; %d call a designed action", len(res.Tasks), kindLine(kinds), calling)
	// Before: no task refused a designed action for its row's state (the
	// walks that reached such a row were dead ends), and one of 36
	// called a designed action (a refuse-some-action).
	if refusedByState < 3 {
		t.Errorf("%d tasks refuse a designed action for the state its row is in (%s); want at least 3", refusedByState, kindLine(kinds))
	}
	if calling < 1 {
		t.Errorf("no task calls a designed action (%s)", kindLine(kinds))
	}
}

// kindOf is the kind in a task id (synth-0007-refuse-if-action-order):
// the longest of kinds the id names after its number.
func kindOf(id string, kinds map[string]int) string {
	rest := id
	if i := strings.Index(id, "-"); i >= 0 {
		if j := strings.Index(id[i+1:], "-"); j >= 0 {
			rest = id[i+j+2:]
		}
	}
	best := ""
	for k := range kinds {
		if strings.HasPrefix(rest, k+"-") && len(k) > len(best) {
			best = k
		}
	}
	return best
}

func kindLine(kinds map[string]int) string {
	var out []string
	for k, n := range kinds {
		out = append(out, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
