package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/sdk"
)

// The guest libraries a tool may import besides sdk (sdk/py) follow the
// rules of tool code: only allowed imports, no package-level variables, no
// init, no go statements or directives. They run in every instance of every
// bundle that imports them, so state they kept would leak between episodes
// just as a tool's would.
func TestGuestLibrariesFollowToolRules(t *testing.T) {
	for _, lib := range []string{PyPath} {
		dir := strings.TrimPrefix(lib, SDKPath+"/")
		if !staged(t, dir) {
			t.Fatalf("%s is allowed to tool code but not embedded in sdk.Source", lib)
		}
		entries, err := fs.ReadDir(sdk.Source, dir)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		files := map[string]*ast.File{}
		n := 0
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			b, err := fs.ReadFile(sdk.Source, path.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, path.Join("sdk", dir, e.Name()), b, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			n++
			files[e.Name()] = f
			for _, e := range checkFile(fset, f, path.Base(dir)) {
				t.Errorf("%s: %s", e.Pos, e.Msg)
			}
		}
		for _, e := range checkPackage(fset, files) {
			t.Errorf("%s: %s", e.Pos, e.Msg)
		}
		if n == 0 {
			t.Errorf("%s: no sources", lib)
		}
	}
}

// The rules do catch a library's state: the test above can fail.
func TestGuestLibraryRulesCatchState(t *testing.T) {
	src := "package py\n\nimport \"os\"\n\nvar cache = map[string]string{}\n\nfunc init() {}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "sdk/py/bad.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkFile(fset, f, "py"); len(errs) != 3 {
		t.Fatalf("want 3 violations (import os, var cache, init), got %d: %v", len(errs), errs)
	}
}

// staged reports whether the compiler stages dir with the sdk sources.
func staged(t *testing.T, dir string) bool {
	files, err := sdkFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if strings.HasPrefix(name, dir+"/") {
			return true
		}
	}
	return false
}
