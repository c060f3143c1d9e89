package synth_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestReturnWhenEverySampleRowClosed: the film rental corpus's sample
// has every rental returned (return_date set on all 362 rows); the
// column is still nullable and each rental opened at its rental_date, so
// the return is an action, and it passes its gate (on a rental the open
// action makes). Before, a milestone needed a NULL in the data, and
// sakila had no return.
func TestReturnWhenEverySampleRowClosed(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "sakila"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	var ret *toolgen.Tool
	for _, tl := range res.Spec.Tools {
		if tl.Kind == toolgen.DomainAction && tl.Table == "rental" && tl.Action.Rule == toolgen.RuleMilestone && tl.Action.Column == "return_date" {
			ret = tl
		}
	}
	if ret == nil {
		t.Fatal("no return action on rental.return_date")
	}
	for _, s := range res.Smoke {
		if s.Tool == ret.Name && !s.Passed {
			t.Errorf("%s: gate failed: %s", s.Tool, s.Detail)
		}
	}
}
