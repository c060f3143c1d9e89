package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestDomainToolset: the domain toolset keeps the actions and the lookups
// within 40 tools and 24 KB of the schemas the rollout sends (measured on
// the built bundle), offers no delete, view or link-row write, no plain
// create where an action adds the rows, no stamp to set by hand; its rows
// come back with the names of the rows they refer to. The CRUD toolset is
// still there on request, and is the library's default.
func TestDomainToolset(t *testing.T) {
	for _, db := range []string{"shop", "library"} {
		t.Run(db, func(t *testing.T) {
			dir := t.TempDir()
			src := shopDB(t, dir)
			if db == "library" {
				src = filepath.Join(dir, "library.sqlite")
				makeDB(t, src, 1)
			}
			res, err := synth.FromDB(context.Background(), src, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Toolset: toolgen.ToolsetDomain})
			if err != nil {
				t.Fatal(err)
			}
			tools := res.Bundle.Manifest.Tools
			size := synth.SchemaBytes(res.Bundle)
			if len(tools) > toolgen.MaxDomainTools || size > toolgen.MaxDomainSchemaBytes || size != res.Summary.SchemaBytes {
				t.Errorf("%d tools, %d bytes of schemas (summary %d)", len(tools), size, res.Summary.SchemaBytes)
			}
			// The estimate the selection uses is never under the real size.
			for _, tl := range tools {
				js, _ := json.Marshal(envpkg.OpenAIToolsFor([]envpkg.Tool{tl}))
				if est := toolgen.SchemaEstimate(res.Spec.Tool(tl.Name)); est < len(js)-1 {
					t.Errorf("%s: estimated %d bytes, takes %d", tl.Name, est, len(js)-1)
				}
			}
			for _, tl := range res.Spec.Tools {
				tb := res.Spec.Model.Table(tl.Table)
				switch {
				case tl.Kind == toolgen.Delete || tl.Kind == toolgen.View || tb == nil:
					t.Errorf("offered %s (%s)", tl.Name, tl.Kind)
				case tl.Kind.Writes() && tl.Kind != toolgen.DomainAction && tb.Name == "book_authors":
					t.Errorf("a link row to write: %s", tl.Name)
				}
				for _, p := range tl.Params {
					if tl.Kind == toolgen.Update && p.Op == toolgen.OpSet && toolgen.Stamp(tb.Column(p.Column)) {
						t.Errorf("%s sets the stamp %s", tl.Name, p.Name)
					}
				}
			}
			if db != "shop" {
				return
			}
			for _, name := range []string{"place_order", "mark_order_cancelled", "add_payment_from_gift_card", "find_customer_by_email", "list_orders"} {
				if res.Spec.Tool(name) == nil {
					t.Errorf("no %s", name)
				}
			}
			if res.Spec.Tool("create_order_line") != nil || res.Spec.Tool("create_payment") != nil {
				t.Error("a plain create of rows an action adds")
			}
			env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			ep, err := env.NewEpisode("", 1)
			if err != nil {
				t.Fatal(err)
			}
			defer ep.Close()
			// A payment names its order's number and its card's code; a
			// loan its customer's email.
			r, err := ep.Call(context.Background(), "list_orders", json.RawMessage(`{"customer_id": 4}`))
			if err != nil || !strings.Contains(r.Content, `"customer_email":"c4@example.org"`) {
				t.Errorf("list_orders: %v %s", err, r.Content)
			}
		})
	}
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.Tool("delete_order") == nil || res.Spec.Tool("create_order_line") == nil || len(res.Spec.Tools) <= toolgen.MaxDomainTools {
		t.Errorf("the CRUD toolset: %d tools", len(res.Spec.Tools))
	}
}
