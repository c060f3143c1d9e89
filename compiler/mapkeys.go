package compiler

import (
	"go/ast"
	"go/token"
)

// checkMapKeys refuses map key types that can hold an address: a pointer,
// a channel, an interface, or a struct or array of one. Go hashes such a key
// by its address, so the map's iteration order (and fmt's order when it
// prints the map) would follow heap addresses, which depend on what ran
// before on the instance. The runtime's random state is reset per call
// (guestpatch.go); addresses cannot be.
//
// It runs over a whole package: a key's named type may be declared in
// another file. Without type information it resolves the package's own
// type names, type parameters by their constraint, and a short list of
// standard types; any other qualified type is refused, to be safe.
func checkMapKeys(files []*ast.File, at func(token.Pos, string, ...any)) {
	k := keyChecker{types: map[string][]ast.Expr{}, params: map[string][]ast.Expr{}, typeParams: map[string][]ast.Expr{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeSpec:
				k.types[x.Name.Name] = append(k.types[x.Name.Name], x.Type)
				k.addParams(x.TypeParams)
				if x.TypeParams != nil {
					for _, f := range x.TypeParams.List {
						for range f.Names {
							k.typeParams[x.Name.Name] = append(k.typeParams[x.Name.Name], f.Type)
						}
					}
				}
			case *ast.FuncType:
				k.addParams(x.TypeParams)
			}
			return true
		})
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				k.addReceiverParams(fn.Recv)
			}
		}
	}
	for _, f := range files {
		imports := importNames(f)
		ast.Inspect(f, func(n ast.Node) bool {
			// maps.Collect makes a map whose key type is inferred, with no
			// map type in the source for the rule to check.
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] == "maps" && sel.Sel.Name == "Collect" {
						at(c.Pos(), "maps.Collect is not allowed in tool code: its key type is inferred, so wasmenv cannot check that it holds no address; make the map with its type and fill it with maps.Insert")
					}
				}
			}
			if m, ok := n.(*ast.MapType); ok {
				if why := k.holdsAddress(m.Key, map[string]bool{}); why != "" {
					at(m.Key.Pos(), "map key type %s %s: Go hashes it by address, so the map's order would depend on what ran before on the instance; key the map by a value (an id, a string)", typeString(m.Key), why)
				}
			}
			return true
		})
	}
}

type keyChecker struct {
	types  map[string][]ast.Expr // the package's type names (any scope)
	params map[string][]ast.Expr // type parameters: their constraints
	// typeParams are each generic type's parameter constraints in order,
	// for its methods' receivers (func (b box[P]) ...).
	typeParams map[string][]ast.Expr
}

// addReceiverParams records a method's receiver type parameters
// (func (b box[P]) ...), which may be renamed from the type's: each gets
// the constraint of the type's parameter at its position. Recorded after
// the types are collected (checkMapKeys' second pass).
func (k *keyChecker) addReceiverParams(recv *ast.FieldList) {
	if recv == nil {
		return
	}
	for _, f := range recv.List {
		t := f.Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		var base ast.Expr
		var idx []ast.Expr
		switch x := t.(type) {
		case *ast.IndexExpr:
			base, idx = x.X, []ast.Expr{x.Index}
		case *ast.IndexListExpr:
			base, idx = x.X, x.Indices
		}
		var constraints []ast.Expr
		if id, ok := base.(*ast.Ident); ok {
			constraints = k.typeParams[id.Name]
		}
		for i, e := range idx {
			if id, ok := e.(*ast.Ident); ok {
				var c ast.Expr = ast.NewIdent("any") // unknown: refused
				if i < len(constraints) {
					c = constraints[i]
				}
				k.params[id.Name] = append(k.params[id.Name], c)
			}
		}
	}
}

func (k *keyChecker) addParams(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			k.params[n.Name] = append(k.params[n.Name], f.Type)
		}
	}
}

// addressFree are the standard types that hold no address and may key a map.
var addressFree = map[string]bool{
	"time.Duration": true, "time.Month": true, "time.Weekday": true, "json.Number": true,
	"sdk.Number": true, "cmp.Ordered": true,
}

var basicTypes = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true, "uintptr": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// holdsAddress says why a key type can hold an address ("" if it cannot).
func (k *keyChecker) holdsAddress(e ast.Expr, seen map[string]bool) string {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return k.holdsAddress(x.X, seen)
	case *ast.StarExpr:
		return "is a pointer"
	case *ast.ChanType:
		return "is a channel"
	case *ast.InterfaceType:
		return "is an interface (it can hold a pointer)"
	case *ast.ArrayType:
		return k.holdsAddress(x.Elt, seen)
	case *ast.StructType:
		for _, f := range x.Fields.List {
			if why := k.holdsAddress(f.Type, seen); why != "" {
				return "has a field that " + why
			}
		}
		return ""
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && addressFree[id.Name+"."+x.Sel.Name] {
			return ""
		}
		return "may hold a pointer (time.Time holds a *time.Location)"
	case *ast.Ident:
		if seen[x.Name] {
			return ""
		}
		seen[x.Name] = true
		// The package's own names first: they may shadow a basic type's
		// (type int *byte).
		params, types := k.params[x.Name], k.types[x.Name]
		for _, c := range params {
			if !k.ordered(c) {
				return "is a type parameter that may be a pointer (constrain it with cmp.Ordered)"
			}
		}
		for _, t := range types {
			if why := k.holdsAddress(t, seen); why != "" {
				return "(" + x.Name + ") " + why
			}
		}
		switch {
		case len(params) > 0 || len(types) > 0 || basicTypes[x.Name]:
			return ""
		case x.Name == "any" || x.Name == "error" || x.Name == "comparable":
			return "is an interface (it can hold a pointer)"
		}
		return "is a type wasmenv cannot see (it may hold a pointer)"
	}
	return "is not a type wasmenv can check"
}

// ordered reports a constraint that admits only basic types: cmp.Ordered, or
// a union of basic types (~int | ~string).
func (k *keyChecker) ordered(c ast.Expr) bool {
	switch x := c.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "cmp" && x.Sel.Name == "Ordered"
	case *ast.BinaryExpr:
		return x.Op == token.OR && k.ordered(x.X) && k.ordered(x.Y)
	case *ast.UnaryExpr:
		return x.Op == token.TILDE && k.ordered(x.X)
	case *ast.Ident:
		return basicTypes[x.Name]
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) != 1 || len(x.Methods.List[0].Names) != 0 {
			return false
		}
		return k.ordered(x.Methods.List[0].Type)
	}
	return false
}

// typeString renders a type expression compactly.
func typeString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return "*" + typeString(x.X)
	case *ast.SelectorExpr:
		return typeString(x.X) + "." + x.Sel.Name
	case *ast.ParenExpr:
		return "(" + typeString(x.X) + ")"
	case *ast.ArrayType:
		return "[...]" + typeString(x.Elt)
	case *ast.ChanType:
		return "chan " + typeString(x.Value)
	case *ast.InterfaceType:
		return "interface{...}"
	case *ast.StructType:
		return "struct{...}"
	}
	return "?"
}
