package compiler

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// Map keys that can hold an address are refused with file:line; keys that
// cannot, including the package's own types declared in another file and
// type parameters constrained to ordered types, are not.
func TestMapKeysThatHoldAddresses(t *testing.T) {
	other := "package tools\n\ntype ref struct {\n\tID  int\n\tOwn *int\n}\n\ntype id struct{ A, B int }\n"
	cases := []struct{ name, body, want string }{
		{"pointer", "m := map[*int]bool{}", "tool.go:5: map key type *int is a pointer"},
		{"interface", "m := map[any]bool{}", "tool.go:5: map key type any is an interface"},
		{"error", "m := map[error]bool{}", "map key type error is an interface"},
		{"channel", "m := map[chan int]bool{}", "map key type chan int is a channel"},
		{"struct in another file", "m := map[ref]bool{}", "map key type ref (ref) has a field that is a pointer"},
		{"inline struct", "m := map[struct{ p *string }]bool{}", "has a field that is a pointer"},
		{"array", "m := map[[2]*int]bool{}", "is a pointer"},
		{"time.Time", "m := map[time.Time]bool{}", "map key type time.Time may hold a pointer"},
		{"comparable param", "m := keys[*int](nil)", "tool.go:9: map key type K is a type parameter that may be a pointer"},
		{"println", "m := 1; println(&m)", "tool.go:5: println is not allowed in tool code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "package tools\nimport \"time\"\n// F x.\nfunc F() (string, error) {\n\t" + c.body + "\n\t_ = m\n\treturn time.UTC.String(), nil\n}\n"
			if c.name == "comparable param" {
				src += "func keys[K comparable](m map[K]bool) int { return len(m) }\n"
			}
			_, err := Build(context.Background(), writeEnv(t, src, map[string]string{"tools/types.go": other}), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got: %v", c.want, err)
			}
		})
	}
}

// The rule needs no build to see keys: allowed shapes pass it.
func TestMapKeysThatHoldNoAddress(t *testing.T) {
	src := `package tools
import (
	"cmp"
	"time"
)
type id struct{ A, B int }
type name string
type pair [2]name
func f[K cmp.Ordered, U ~int | ~string](a map[K]int, b map[U]int) {}
var _ = map[string]int{}
var _ = map[id]bool{}
var _ = map[pair]bool{}
var _ = map[time.Duration]bool{}
var _ = map[struct{ a int; b string }]bool{}
var _ = map[float64]map[*int]bool{}
`
	got := keyViolations(t, src)
	// Only the inner map[*int] of the last line.
	if len(got) != 1 || !strings.HasPrefix(got[0], "tools/x.go:15:") {
		t.Fatalf("want one violation at line 15, got %v", got)
	}
}

// Ways around the rule found in review: a method's renamed receiver type
// parameter, a key type inferred by maps.Collect, a basic type's name
// shadowed by a pointer type.
func TestMapKeyRuleHasNoSyntaxBypass(t *testing.T) {
	for name, src := range map[string]string{
		"receiver type parameter renamed": "package tools\ntype box[K comparable] struct{ k K }\nfunc (b box[P]) order(ks []P) int {\n\tm := map[P]int{}\n\treturn len(m)\n}\n",
		"maps.Collect infers the key":     "package tools\nimport \"maps\"\nfunc order(ps []*int) int {\n\tm := maps.Collect(func(yield func(*int, int) bool) {})\n\treturn len(m)\n}\n",
		"shadowed basic name":             "package tools\ntype int *byte\nvar _ = map[int]bool{}\n",
	} {
		if len(keyViolations(t, src)) == 0 {
			t.Errorf("%s: no violation reported", name)
		}
	}
}

// A method of a generic type keeps its type's constraint under a new name.
func TestMapKeyReceiverKeepsOrderedConstraint(t *testing.T) {
	src := "package tools\nimport \"cmp\"\ntype box[K cmp.Ordered] struct{ k K }\nfunc (b *box[P]) n() int { return len(map[P]int{}) }\n"
	if got := keyViolations(t, src); len(got) != 0 {
		t.Errorf("refused an ordered receiver parameter at %v", got)
	}
}

// Second review: an instantiated maps.Collect is refused too, and ordinary
// generic code is not (type parameters are scoped to their declaration,
// named constraint interfaces resolve, a generic type's instance is checked
// through its arguments).
func TestMapKeyRuleScopesAndInstances(t *testing.T) {
	for name, src := range map[string]string{
		"Collect instantiated":             "package tools\nimport \"maps\"\nfunc f() int {\n\tm := maps.Collect[*int, int](func(yield func(*int, int) bool) {})\n\treturn len(m)\n}\n",
		"Collect as a value":               "package tools\nimport \"maps\"\nfunc f() int {\n\tc := maps.Collect[*int, int]\n\treturn len(c(nil))\n}\n",
		"instance with a pointer argument": "package tools\ntype pair[A, B comparable] struct{ a A; b B }\nvar _ = map[pair[*int, int]]bool{}\n",
	} {
		if len(keyViolations(t, src)) == 0 {
			t.Errorf("%s: not refused", name)
		}
	}
	for name, src := range map[string]string{
		"same parameter name, other constraint": "package tools\nimport \"cmp\"\nfunc groupBy[T any, K cmp.Ordered](xs []T) map[K][]T { return nil }\nfunc contains[K comparable](xs []K, x K) bool { return false }\n",
		"named constraint":                      "package tools\ntype ID interface{ ~int64 | ~string }\nfunc f[K ID]() map[K]int { return nil }\n",
		"generic instance key":                  "package tools\ntype pair[A, B comparable] struct{ a A; b B }\nvar _ = map[pair[string, int]]bool{}\n",
	} {
		if got := keyViolations(t, src); len(got) != 0 {
			t.Errorf("%s: refused at %v", name, got)
		}
	}
}

// keyViolations runs the map-key rule on one file and returns where it
// refused something.
func keyViolations(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "tools/x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	checkMapKeys([]*ast.File{f}, func(p token.Pos, format string, args ...any) {
		got = append(got, fset.Position(p).String())
	})
	return got
}
