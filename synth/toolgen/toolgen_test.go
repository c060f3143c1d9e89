package toolgen

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

func TestMain(m *testing.M) { testcache.Main(m) }

func TestNamesRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"Order Items": "order_items", "customerID": "customer_id", "InvoiceLine": "invoice_line", "HTTPServer": "http_server", "ArtistId": "artist_id", "t-2": "t2",
		"生产": "", "2024_sales": "n2024_sales", "a__b": "a_b", "Größe": "gr_e"} {
		got := ident(in)
		if got != want {
			t.Errorf("ident(%q) = %q, want %q", in, got, want)
		}
		// The compiler names a tool compiler.ToolName(GoName); that name must be
		// stable (one-letter words merge: a_b → AB → ab → Ab → ab).
		if n := compiler.ToolName(camel(got)); got != "" && compiler.ToolName(camel(n)) != n {
			t.Errorf("%q: tool name %q is not stable", got, n)
		}
	}
}

// TestOddNames: tables and columns named with spaces, digits and non-ASCII
// letters still give valid, unique tool and parameter names, and the source
// compiles, read-only or not.
func TestOddNames(t *testing.T) {
	for _, ro := range []bool{false, true} {
		oddNames(t, ro)
	}
}

func oddNames(t *testing.T, readOnly bool) {
	col := func(name string, k dbmodel.Kind, pk int) *dbmodel.Column {
		return &dbmodel.Column{Name: name, Kind: k, PK: pk, NotNull: pk > 0}
	}
	m := &dbmodel.Model{Tables: []*dbmodel.Table{
		{Name: "生产", PrimaryKey: []string{"id"}, Columns: []*dbmodel.Column{col("id", dbmodel.Integer, 1), col("名前", dbmodel.Text, 0), col("名 前", dbmodel.Text, 0)}},
		{Name: "Order Items", PrimaryKey: []string{"Order ID", "line"}, Columns: []*dbmodel.Column{col("Order ID", dbmodel.Text, 1), col("line", dbmodel.Integer, 2), col("qty", dbmodel.Integer, 0),
			{Name: "offset", Kind: dbmodel.Text, Enum: []string{"a", "b"}}, {Name: "sort_by", Kind: dbmodel.Text, Enum: []string{"x", "y"}}}},
	}}
	spec, err := Generate(m, Options{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]bool{}
	for _, tl := range spec.Tools {
		if !valid.MatchString(tl.Name) || seen[tl.Name] {
			t.Errorf("tool name %q", tl.Name)
		}
		seen[tl.Name] = true
		params := map[string]bool{}
		for _, p := range tl.Params {
			if !valid.MatchString(p.Name) || params[p.Name] {
				t.Errorf("%s: parameter name %q", tl.Name, p.Name)
			}
			params[p.Name] = true
		}
	}
	// And the source compiles.
	dir := filepath.Join(t.TempDir(), "env")
	if err := emit.Write(dir, &emit.Env{Name: "odd", Schema: emit.SchemaSQL(m, nil), Tools: spec.Files}); err != nil {
		t.Fatal(err)
	}
	b, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Manifest.Tools) != len(spec.Tools) {
		t.Errorf("built %d tools, spec has %d", len(b.Manifest.Tools), len(spec.Tools))
	}
	for i, tl := range b.Manifest.Tools {
		if !seen[tl.Name] {
			t.Errorf("built tool %d is %q, not in the spec", i, tl.Name)
		}
	}
	if spec.Tool("get_order_item") == nil || spec.Tool("get_order_item").Param("order_id") == nil || (spec.Tool("delete_order_item") != nil) == readOnly {
		t.Errorf("composite key tool: %+v", spec.Tool("get_order_item"))
	}
}

// TestToolDocsRead: articles and self-references read as English (issue
// 28: "Creates a audit log", "Lists the staff of a staff").
func TestToolDocsRead(t *testing.T) {
	m := &dbmodel.Model{Tables: []*dbmodel.Table{
		{Name: "staff", PrimaryKey: []string{"id"}, Columns: []*dbmodel.Column{{Name: "id", Kind: dbmodel.Integer, PK: 1, Generated: true}, {Name: "supervisor_id", Kind: dbmodel.Integer}},
			ForeignKeys: []dbmodel.ForeignKey{{Columns: []string{"supervisor_id"}, RefTable: "staff", RefColumns: []string{"id"}}}},
		{Name: "audit_logs", PrimaryKey: []string{"id"}, Columns: []*dbmodel.Column{{Name: "id", Kind: dbmodel.Integer, PK: 1, Generated: true}, {Name: "what", Kind: dbmodel.Text}}},
	}}
	spec, err := Generate(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]string{"create_audit_log": "Creates an audit log", "list_staff_by_supervisor": "Lists the staff whose supervisor is the given staff",
		"get_supervisor_of_staff": "that a staff refers to"} {
		if tl := spec.Tool(tool); tl == nil || !strings.Contains(tl.Doc, want) {
			t.Errorf("%s: %+v, want %q", tool, tl, want)
		}
	}
}

// shorten keeps names that fit, and tells apart long names sharing a
// prefix (issue 37 finding 15).
func TestShortenToolNames(t *testing.T) {
	fits := strings.Repeat("a", 64)
	if shorten(fits, 64) != fits {
		t.Errorf("a 64-byte name was changed")
	}
	a, b := shorten(strings.Repeat("ab_", 30)+"x", 60), shorten(strings.Repeat("ab_", 30)+"y", 60)
	if len(a) > 60 || len(b) > 60 || a == b || ident(a) != a {
		t.Errorf("%q %q", a, b)
	}
}
