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
// It reads syntax, over a whole package (a key's named type may be declared
// in another file): it resolves the package's own type names (generic ones
// through their instantiation's arguments), type parameters by their
// constraint in the declaration they belong to (a method's receiver
// parameters by its type's), and a short list of standard types. Anything
// it cannot resolve is refused, to be safe, and so is maps.Collect, whose
// key type is inferred with no map type in the source.
func checkMapKeys(files []*ast.File, at func(token.Pos, string, ...any)) {
	k := keyChecker{types: map[string][]*ast.TypeSpec{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if x, ok := n.(*ast.TypeSpec); ok {
				k.types[x.Name.Name] = append(k.types[x.Name.Name], x)
			}
			return true
		})
	}
	for _, f := range files {
		imports := importNames(f)
		check := func(root ast.Node, scope map[string]ast.Expr) {
			ast.Inspect(root, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] == "maps" && x.Sel.Name == "Collect" {
						at(x.Pos(), "maps.Collect is not allowed in tool code: its key type is inferred, so wasmenv cannot check that it holds no address; make the map with its type and fill it with maps.Insert")
					}
				case *ast.MapType:
					if why := k.holdsAddress(x.Key, scope, map[string]bool{}); why != "" {
						at(x.Key.Pos(), "map key type %s %s: Go hashes it by address, so the map's order would depend on what ran before on the instance; key the map by a value (an id, a string)", typeString(x.Key), why)
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.FuncDecl:
				scope := map[string]ast.Expr{}
				addParams(scope, x.Type.TypeParams)
				k.addReceiverParams(scope, x.Recv)
				check(x, scope)
			case *ast.GenDecl:
				for _, spec := range x.Specs {
					scope := map[string]ast.Expr{}
					if ts, ok := spec.(*ast.TypeSpec); ok {
						addParams(scope, ts.TypeParams)
					}
					check(spec, scope)
				}
			}
		}
	}
}

type keyChecker struct {
	types map[string][]*ast.TypeSpec // the package's type names (any scope)
}

// addParams records type parameters with their constraints.
func addParams(scope map[string]ast.Expr, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			scope[n.Name] = f.Type
		}
	}
}

// addReceiverParams records a method's receiver type parameters
// (func (b box[P]) ...), which may be renamed from the type's: each gets
// the constraint of the type's parameter at its position.
func (k *keyChecker) addReceiverParams(scope map[string]ast.Expr, recv *ast.FieldList) {
	if recv == nil {
		return
	}
	for _, f := range recv.List {
		t := f.Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		base, idx := instance(t)
		var constraints []ast.Expr
		if id, ok := base.(*ast.Ident); ok && len(k.types[id.Name]) == 1 {
			if tp := k.types[id.Name][0].TypeParams; tp != nil {
				for _, f := range tp.List {
					for range f.Names {
						constraints = append(constraints, f.Type)
					}
				}
			}
		}
		for i, e := range idx {
			if id, ok := e.(*ast.Ident); ok {
				var c ast.Expr = ast.NewIdent("any") // unknown: refused
				if i < len(constraints) {
					c = constraints[i]
				}
				scope[id.Name] = c
			}
		}
	}
}

// instance splits a generic instantiation T[A, B] into T and its arguments.
func instance(e ast.Expr) (base ast.Expr, args []ast.Expr) {
	switch x := e.(type) {
	case *ast.IndexExpr:
		return x.X, []ast.Expr{x.Index}
	case *ast.IndexListExpr:
		return x.X, x.Indices
	}
	return e, nil
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

// safeParam marks a type parameter whose argument was already checked.
var safeParam = ast.NewIdent("wasmenv checked argument")

// holdsAddress says why a key type can hold an address ("" if it cannot).
// scope maps the type parameters in force to their constraints.
func (k *keyChecker) holdsAddress(e ast.Expr, scope map[string]ast.Expr, seen map[string]bool) string {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return k.holdsAddress(x.X, scope, seen)
	case *ast.StarExpr:
		return "is a pointer"
	case *ast.ChanType:
		return "is a channel"
	case *ast.InterfaceType:
		return "is an interface (it can hold a pointer)"
	case *ast.ArrayType:
		return k.holdsAddress(x.Elt, scope, seen)
	case *ast.StructType:
		for _, f := range x.Fields.List {
			if why := k.holdsAddress(f.Type, scope, seen); why != "" {
				return "has a field that " + why
			}
		}
		return ""
	case *ast.IndexExpr, *ast.IndexListExpr:
		base, args := instance(x)
		for _, a := range args {
			if why := k.holdsAddress(a, scope, seen); why != "" {
				return "has a type argument that " + why
			}
		}
		id, ok := base.(*ast.Ident)
		if !ok || len(k.types[id.Name]) != 1 {
			return "is a generic type wasmenv cannot see (it may hold a pointer)"
		}
		spec := k.types[id.Name][0]
		inner := map[string]ast.Expr{}
		if spec.TypeParams != nil {
			for _, f := range spec.TypeParams.List {
				for _, n := range f.Names {
					inner[n.Name] = safeParam
				}
			}
		}
		if why := k.holdsAddress(spec.Type, inner, seen); why != "" {
			return "(" + id.Name + ") " + why
		}
		return ""
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && addressFree[id.Name+"."+x.Sel.Name] {
			return ""
		}
		return "may hold a pointer (time.Time holds a *time.Location)"
	case *ast.Ident:
		if c, ok := scope[x.Name]; ok {
			if c == safeParam || k.ordered(c, 0) {
				return ""
			}
			return "is a type parameter that may be a pointer (constrain it with cmp.Ordered)"
		}
		if seen[x.Name] {
			return ""
		}
		// The package's own names first: they may shadow a basic type's
		// (type int *byte).
		if specs := k.types[x.Name]; len(specs) > 0 {
			seen[x.Name] = true
			defer delete(seen, x.Name)
			for _, s := range specs {
				if why := k.holdsAddress(s.Type, map[string]ast.Expr{}, seen); why != "" {
					return "(" + x.Name + ") " + why
				}
			}
			return ""
		}
		switch {
		case basicTypes[x.Name]:
			return ""
		case x.Name == "any" || x.Name == "error" || x.Name == "comparable":
			return "is an interface (it can hold a pointer)"
		}
		return "is a type wasmenv cannot see (it may hold a pointer)"
	}
	return "is not a type wasmenv can check"
}

// ordered reports a constraint that admits only basic types: cmp.Ordered, a
// union of basic types (~int | ~string), or the package's own interface of
// one.
func (k *keyChecker) ordered(c ast.Expr, depth int) bool {
	if depth > 8 {
		return false
	}
	switch x := c.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "cmp" && x.Sel.Name == "Ordered"
	case *ast.BinaryExpr:
		return x.Op == token.OR && k.ordered(x.X, depth+1) && k.ordered(x.Y, depth+1)
	case *ast.UnaryExpr:
		return x.Op == token.TILDE && k.ordered(x.X, depth+1)
	case *ast.ParenExpr:
		return k.ordered(x.X, depth+1)
	case *ast.Ident:
		if specs := k.types[x.Name]; len(specs) == 1 {
			if _, isIface := specs[0].Type.(*ast.InterfaceType); isIface {
				return k.ordered(specs[0].Type, depth+1)
			}
			return false
		}
		return basicTypes[x.Name]
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) != 1 || len(x.Methods.List[0].Names) != 0 {
			return false
		}
		return k.ordered(x.Methods.List[0].Type, depth+1)
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
	case *ast.IndexExpr, *ast.IndexListExpr:
		base, _ := instance(x)
		return typeString(base) + "[...]"
	}
	return "?"
}
