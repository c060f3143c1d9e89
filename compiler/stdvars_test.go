package compiler

import (
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// stdVars must list every exported variable of the allowed packages in
// this toolchain, or the rule that keeps tool code from changing them
// would miss some.
func TestStdVarsAreCurrent(t *testing.T) {
	ctx := gobuild.Default
	ctx.GOOS, ctx.GOARCH = "wasip1", "wasm"
	got := map[string][]string{}
	for _, path := range allowedImports {
		if path == SDKPath {
			continue
		}
		p, err := ctx.Import(path, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			got[path] = names
		}
	}
	if !reflect.DeepEqual(got, stdVars) {
		t.Errorf("stdvars.go is out of date for this toolchain; regenerate it from:\n%#v", got)
	}
}
