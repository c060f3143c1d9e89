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
	k := keyChecker{types: map[string][]ast.Expr{}, params: map[string][]ast.Expr{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeSpec:
				k.types[x.Name.Name] = append(k.types[x.Name.Name], x.Type)
				k.addParams(x.TypeParams)
			case *ast.FuncType:
				k.addParams(x.TypeParams)
			}
			return true
		})
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
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
		switch {
		case basicTypes[x.Name]:
			return ""
		case x.Name == "any" || x.Name == "error" || x.Name == "comparable":
			return "is an interface (it can hold a pointer)"
		case seen[x.Name]:
			return ""
		}
		seen[x.Name] = true
		for _, c := range k.params[x.Name] {
			if !k.ordered(c) {
				return "is a type parameter that may be a pointer (constrain it with cmp.Ordered)"
			}
		}
		for _, t := range k.types[x.Name] {
			if why := k.holdsAddress(t, seen); why != "" {
				return "(" + x.Name + ") " + why
			}
		}
		return ""
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
