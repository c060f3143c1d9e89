package compiler

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SDKPath is the import path of the guest SDK.
const SDKPath = "github.com/wasmenv/wasmenv/sdk"

// PyPath is the import path of the guest library of Python semantics
// (json.dumps-exact values, Python numbers), staged with the sdk.
const PyPath = SDKPath + "/py"

// allowedImports are the packages tool code may import: deterministic,
// side-effect free, with no access to files, network or environment.
var allowedImports = []string{
	SDKPath, PyPath, "bytes", "cmp", "encoding/base64", "encoding/hex", "encoding/json", "errors",
	"fmt", "maps", "math", "regexp", "slices", "sort", "strconv", "strings", "time",
	"unicode", "unicode/utf8", "unicode/utf16",
}

// parsedTools is the tools package parsed and checked.
type parsedTools struct {
	fset  *token.FileSet
	files map[string]*ast.File // by base name
	dir   string               // source tools dir, for positions
}

// parseTools parses tools/*.go and applies the static rules. All violations
// are reported together, each with file:line.
func parseTools(dir string, sources map[string][]byte) (*parsedTools, error) {
	p := &parsedTools{fset: token.NewFileSet(), files: map[string]*ast.File{}, dir: dir}
	var errs ErrorList
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(p.fset, path, sources[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, &Error{Pos: path, Msg: strings.TrimPrefix(err.Error(), path+":")}
		}
		p.files[name] = f
		errs = append(errs, checkFile(p.fset, f, "tools")...)
	}
	errs = append(errs, checkPackage(p.fset, p.files)...)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// checkPackage applies the rules that need the whole package (a type may
// be declared in another file).
func checkPackage(fset *token.FileSet, files map[string]*ast.File) ErrorList {
	var errs ErrorList
	at := func(n token.Pos, format string, args ...any) {
		pos := fset.Position(n)
		errs = append(errs, &Error{Pos: fmt.Sprintf("%s:%d", pos.Filename, pos.Line), Msg: fmt.Sprintf(format, args...)})
	}
	names := slices.Sorted(maps.Keys(files))
	list := make([]*ast.File, len(names))
	for i, n := range names {
		list[i] = files[n]
	}
	checkMapKeys(list, at)
	return errs
}

func (p *parsedTools) pos(n token.Pos) string {
	pos := p.fset.Position(n)
	return fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
}

// checkFile applies the rules of guest code to a file of package pkg: the
// tools package, or a guest library staged with the sdk (sdk/py), which
// the same rules bind (TestGuestLibrariesFollowToolRules).
func checkFile(fset *token.FileSet, f *ast.File, pkg string) ErrorList {
	var errs ErrorList
	at := func(n token.Pos, format string, args ...any) {
		pos := fset.Position(n)
		errs = append(errs, &Error{Pos: fmt.Sprintf("%s:%d", pos.Filename, pos.Line), Msg: fmt.Sprintf(format, args...)})
	}
	if f.Name.Name != pkg {
		at(f.Name.Pos(), "package must be named %s, not %s", pkg, f.Name.Name)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !slices.Contains(allowedImports, path) {
			at(imp.Pos(), "import %q is not allowed in tool code (allowed: %s)", path, strings.Join(allowedImports, ", "))
		}
		if imp.Name != nil && (imp.Name.Name == "." || imp.Name.Name == "_") {
			at(imp.Pos(), "%s imports are not allowed", imp.Name.Name)
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:") || strings.HasPrefix(c.Text, "//export ") || strings.HasPrefix(c.Text, "//line ") {
				at(c.Pos(), "compiler directive %q is not allowed in tool code", strings.Fields(c.Text)[0])
			}
		}
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					if n.Name == "_" {
						continue // nothing can read it back: no state (var _ I = T{} asserts at compile time)
					}
					at(n.Pos(), "package-level var %s: tool code may not keep state in memory (it would leak between episodes); keep state in the database or use a const", n.Name)
				}
				// A blank var keeps no state, but its initializer runs when
				// an instance starts, like init: nothing in it may call.
				for _, v := range vs.Values {
					if call := firstCall(v); call != nil {
						at(call.Pos(), "package-level var _ = …: its initializer calls a function, which runs when an instance starts, outside any call's limits (as init would); a compile-time check is var _ I = T{}")
					}
				}
			}
		}
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
			at(fn.Pos(), "init functions are not allowed in tool code: they run when an instance starts, outside any call's limits")
		}
	}
	imports := importNames(f)
	// rooted reports the imported package an expression such as
	// pkg.Var, pkg.Var[k].Field or *pkg.Var is rooted at, if any.
	rooted := func(e ast.Expr) string {
		for {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] != "" {
					return imports[id.Name]
				}
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.ParenExpr:
				e = x.X
			default:
				return ""
			}
		}
	}
	mutates := func(e ast.Expr, pos token.Pos) {
		if pkg := rooted(e); pkg != "" {
			at(pos, "tool code may not change package %s's variables: that state would outlive the call and leak into other episodes", pkg)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && !declaresFunc(f, id.Name) {
				at(x.Pos(), "%s is not allowed in tool code: it writes to the instance's stderr and prints addresses as they are (use sdk.Log)", id.Name)
			}
		case *ast.GoStmt:
			at(x.Pos(), "go statements are not allowed in tool code: a call runs on one thread and must finish")
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					mutates(l, x.Pos())
				}
			}
		case *ast.IncDecStmt:
			mutates(x.X, x.Pos())
		case *ast.RangeStmt:
			if x.Tok == token.ASSIGN {
				for _, l := range []ast.Expr{x.Key, x.Value} {
					if l != nil {
						mutates(l, x.Pos())
					}
				}
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				mutates(x.X, x.Pos())
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] == "time" && deferredTime[x.Sel.Name] {
				at(x.Pos(), "time.%s is not allowed in tool code: it runs or waits outside the call (use sdk.Now for the episode clock)", x.Sel.Name)
			}
			if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] == "time" && hostTime[x.Sel.Name] {
				at(x.Pos(), "time.%s is not allowed in tool code: its monotonic reading counts what ran before on the instance (use sdk.Now, the episode clock)", x.Sel.Name)
			}
		}
		return true
	})
	checkStdVars(f, imports, at)
	checkPointerVerbs(f, imports, at)
	return errs
}

// declaresFunc reports a top-level function of that name in f.
func declaresFunc(f *ast.File, name string) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			return true
		}
	}
	return false
}

// hostTime are the time functions that read the instance's clocks.
var hostTime = map[string]bool{"Now": true, "Since": true, "Until": true}

// checkStdVars refuses uses of the allowed packages' variables (time.Local,
// base64.StdEncoding, unicode.Categories, ...) other than reading them in
// place: calling their methods, comparing with them, passing them to a
// function of a standard package that does not change its arguments. An
// alias (l := time.Local) or a call that changes its argument
// (clear(unicode.Categories), maps.Copy) would let one call change state
// that the next episode on the instance sees.
func checkStdVars(f *ast.File, imports map[string]string, at func(token.Pos, string, ...any)) {
	ref := func(e ast.Expr) (pkg, name string, ok bool) {
		sel, isSel := e.(*ast.SelectorExpr)
		if !isSel {
			return "", "", false
		}
		id, isID := sel.X.(*ast.Ident)
		if !isID || imports[id.Name] == "" {
			return "", "", false
		}
		path := imports[id.Name]
		return path, sel.Sel.Name, slices.Contains(stdVars[path], sel.Sel.Name)
	}
	allowed := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			fun := ast.Unparen(x.Fun)
			if sel, ok := fun.(*ast.SelectorExpr); ok {
				if _, _, ok := ref(sel.X); ok {
					allowed[sel.X] = true // a method call: pkg.Var.Method(...)
				}
				if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] != "" && mutatingPackages[imports[id.Name]] {
					return true
				}
				for _, a := range x.Args { // pkg.Func(pkg.Var) or v.Method(pkg.Var)
					allowed[a] = true
				}
			} else if id, ok := fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
				for _, a := range x.Args {
					allowed[a] = true
				}
			}
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				allowed[x.X], allowed[x.Y] = true, true
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				allowed[e] = true
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if pkg, name, ok := ref(e); ok && !allowed[e] {
			at(e.Pos(), "tool code may only read %s.%s in place (call its methods, compare with it, pass it to a standard function): an alias of it, or a call that changes it, would carry state into other episodes", pkg, name)
			return false
		}
		return true
	})
}

// checkPointerVerbs refuses %p in a literal format string: a heap
// address depends on what ran before on the instance, so output that
// shows one differs between replays of the same episode.
func checkPointerVerbs(f *ast.File, imports map[string]string, at func(token.Pos, string, ...any)) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || !(imports[id.Name] == "fmt" || imports[id.Name] == SDKPath && sel.Sel.Name == "Log") {
			return true
		}
		for _, a := range call.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			text, err := strconv.Unquote(lit.Value)
			if err == nil && hasPointerVerb(text) {
				at(lit.Pos(), "%%p is not allowed in tool code: an address depends on what ran before on the instance, so the output would differ between replays")
			}
		}
		return true
	})
}

// hasPointerVerb reports a %p verb (with any flags or width) in a format.
func hasPointerVerb(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[j]) >= 0 {
			j++
		}
		if j < len(format) && format[j] == 'p' {
			return true
		}
		if j < len(format) && format[j] == '%' {
			i = j
		}
	}
	return false
}

// mutatingPackages have functions that change their arguments in place.
var mutatingPackages = map[string]bool{"maps": true, "slices": true, "sort": true}

// deferredTime are the time functions that schedule work or wait.
var deferredTime = map[string]bool{"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true, "After": true, "Sleep": true}

// importNames maps each import's local name to its path.
func importNames(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

// parseToolsUnchecked parses without the static rules (see Options.SkipStaticChecks).
func parseToolsUnchecked(dir string, sources map[string][]byte) (*parsedTools, error) {
	p := &parsedTools{fset: token.NewFileSet(), files: map[string]*ast.File{}, dir: dir}
	for name, src := range sources {
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(p.fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, &Error{Pos: path, Msg: err.Error()}
		}
		p.files[name] = f
	}
	return p, nil
}

// firstCall returns the first call expression in e (a conversion counts:
// the parser cannot tell them apart), or nil.
func firstCall(e ast.Expr) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && found == nil {
			found = c
		}
		return found == nil
	})
	return found
}
