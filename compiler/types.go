package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// kind is a type the compiler knows how to describe, decode and encode.
type kind int

const (
	kString kind = iota
	kBool
	kInt   // int, int8..int64
	kUint  // uint..uint64
	kFloat // float32, float64
	kSlice
	kPtr
	kMap // map[string]T
	kStruct
	kAny    // any, interface{}, sdk.Row, sdk.Rows, sdk.RawJSON: encoded dynamically
	kNumber // sdk.Number: a JSON number kept as its text
)

// typ is a resolved type: the kind, its Go spelling in the generated main
// package, and its parts.
type typ struct {
	kind   kind
	gotype string // e.g. "string", "[]tools.Item", "tools.Status"
	named  string // for kStruct and named basic types: the type name in package tools
	basic  string // for named basic types: the underlying basic type
	elem   *typ   // kSlice, kPtr, kMap
	fields []field
}

type field struct {
	goName    string
	jsonName  string
	optional  bool // pointer or omitempty
	omitEmpty bool
	desc      string
	enum      []string
	t         *typ
}

// tool is one exported tool function.
type tool struct {
	goName  string
	name    string
	desc    string
	args    *typ // nil when the function takes no argument
	result  *typ
	rawText bool // result is a string passed through as is
	pos     string
}

// resolver resolves type expressions in package tools.
type resolver struct {
	p     *parsedTools
	decls map[string]*ast.TypeSpec
	cache map[string]*typ
}

func newResolver(p *parsedTools) *resolver {
	r := &resolver{p: p, decls: map[string]*ast.TypeSpec{}, cache: map[string]*typ{}}
	for _, f := range p.files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if ts.Doc == nil && len(g.Specs) == 1 {
						ts.Doc = g.Doc
					}
					r.decls[ts.Name.Name] = ts
				}
			}
		}
	}
	return r
}

var basicKinds = map[string]kind{
	"string": kString, "bool": kBool,
	"int": kInt, "int8": kInt, "int16": kInt, "int32": kInt, "int64": kInt,
	"uint": kUint, "uint8": kUint, "uint16": kUint, "uint32": kUint, "uint64": kUint,
	"byte": kUint, "rune": kInt,
	"float32": kFloat, "float64": kFloat,
}

func (r *resolver) resolve(e ast.Expr) (*typ, error) {
	switch x := e.(type) {
	case *ast.Ident:
		if k, ok := basicKinds[x.Name]; ok {
			return &typ{kind: k, gotype: x.Name}, nil
		}
		if x.Name == "any" {
			return &typ{kind: kAny, gotype: "any"}, nil
		}
		switch x.Name {
		case "complex64", "complex128", "uintptr", "error":
			return nil, fmt.Errorf("type %s is not supported here (JSON has no such value)", x.Name)
		}
		return r.named(x)
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) == 0 {
			return &typ{kind: kAny, gotype: "any"}, nil
		}
	case *ast.StarExpr:
		el, err := r.resolve(x.X)
		if err != nil {
			return nil, err
		}
		return &typ{kind: kPtr, gotype: "*" + el.gotype, elem: el}, nil
	case *ast.ArrayType:
		if x.Len != nil {
			return nil, fmt.Errorf("arrays are not supported, use a slice")
		}
		el, err := r.resolve(x.Elt)
		if err != nil {
			return nil, err
		}
		return &typ{kind: kSlice, gotype: "[]" + el.gotype, elem: el}, nil
	case *ast.MapType:
		if k, ok := x.Key.(*ast.Ident); !ok || k.Name != "string" {
			return nil, fmt.Errorf("only maps with string keys are supported")
		}
		el, err := r.resolve(x.Value)
		if err != nil {
			return nil, err
		}
		return &typ{kind: kMap, gotype: "map[string]" + el.gotype, elem: el}, nil
	case *ast.SelectorExpr:
		if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "sdk" {
			switch x.Sel.Name {
			case "Row", "Rows", "RawJSON":
				return &typ{kind: kAny, gotype: "sdk." + x.Sel.Name}, nil
			case "Number":
				return &typ{kind: kNumber, gotype: "sdk.Number"}, nil
			}
		}
		if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "json" && x.Sel.Name == "RawMessage" {
			return &typ{kind: kAny, gotype: "sdk.RawJSON"}, nil
		}
	}
	return nil, fmt.Errorf("type %s is not supported here", exprString(e))
}

func (r *resolver) named(id *ast.Ident) (*typ, error) {
	if t, ok := r.cache[id.Name]; ok {
		if t == nil {
			return nil, fmt.Errorf("recursive type %s is not supported", id.Name)
		}
		return t, nil
	}
	ts, ok := r.decls[id.Name]
	if !ok {
		return nil, fmt.Errorf("unknown type %s (argument and result types must be declared in package tools)", id.Name)
	}
	if !ast.IsExported(id.Name) {
		return nil, fmt.Errorf("type %s must be exported to be used by the generated code", id.Name)
	}
	r.cache[id.Name] = nil // guards recursion
	var t *typ
	switch u := ts.Type.(type) {
	case *ast.StructType:
		t = &typ{kind: kStruct, gotype: "tools." + id.Name, named: id.Name}
		for _, f := range u.Fields.List {
			if len(f.Names) == 0 {
				return nil, fmt.Errorf("%s: embedded fields are not supported", id.Name)
			}
			ft, err := r.resolve(f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %v", id.Name, f.Names[0].Name, err)
			}
			for _, n := range f.Names {
				fd, skip, err := fieldOf(n.Name, f, ft)
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %v", id.Name, n.Name, err)
				}
				if !skip {
					t.fields = append(t.fields, fd)
				}
			}
		}
	case *ast.Ident:
		k, ok := basicKinds[u.Name]
		if !ok {
			return nil, fmt.Errorf("type %s: underlying type %s is not supported", id.Name, u.Name)
		}
		t = &typ{kind: k, gotype: "tools." + id.Name, named: id.Name, basic: u.Name}
	default:
		under, err := r.resolve(ts.Type)
		if err != nil {
			return nil, fmt.Errorf("type %s: %v", id.Name, err)
		}
		cp := *under
		cp.gotype = "tools." + id.Name
		t = &cp
	}
	r.cache[id.Name] = t
	return t, nil
}

func fieldOf(name string, f *ast.Field, t *typ) (field, bool, error) {
	fd := field{goName: name, jsonName: ToolName(name), t: t, optional: t.kind == kPtr}
	if !ast.IsExported(name) {
		return fd, true, nil
	}
	var tag reflect.StructTag
	if f.Tag != nil {
		s, _ := strconv.Unquote(f.Tag.Value)
		tag = reflect.StructTag(s)
	}
	if j, ok := tag.Lookup("json"); ok {
		parts := strings.Split(j, ",")
		if parts[0] == "-" && len(parts) == 1 {
			return fd, true, nil
		}
		if parts[0] != "" {
			fd.jsonName = parts[0]
		}
		for _, opt := range parts[1:] {
			if opt == "omitempty" || opt == "omitzero" {
				fd.omitEmpty, fd.optional = true, true
			}
		}
	}
	fd.desc = strings.TrimSpace(f.Doc.Text())
	if fd.desc == "" {
		fd.desc = strings.TrimSpace(f.Comment.Text())
	}
	if d, ok := tag.Lookup("desc"); ok {
		fd.desc = d
	}
	if e, ok := tag.Lookup("enum"); ok {
		base := t
		for base.kind == kPtr || base.kind == kSlice {
			base = base.elem
		}
		if base.kind != kString {
			return fd, false, fmt.Errorf("enum tag on a non-string field")
		}
		for _, v := range strings.Split(e, ",") {
			fd.enum = append(fd.enum, strings.TrimSpace(v))
		}
	}
	return fd, false, nil
}

func exprString(e ast.Expr) string {
	var b bytes.Buffer
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	case *ast.ArrayType:
		return "[]" + exprString(x.Elt)
	case *ast.MapType:
		return "map[" + exprString(x.Key) + "]" + exprString(x.Value)
	case *ast.FuncType:
		return "func"
	case *ast.ChanType:
		return "chan"
	}
	fmt.Fprintf(&b, "%T", e)
	return b.String()
}

// ToolName is the rule from a Go identifier to a tool or argument name:
// snake_case, keeping acronyms whole (FindUserIDByNameZip →
// find_user_id_by_name_zip). Generators (synth) call it to know the names
// the compiler will give.
func ToolName(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if i > 0 && (prevLower || (nextLower && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// findTools lists the exported functions of package tools, in file then
// declaration order, and checks their signatures.
func findTools(p *parsedTools) ([]tool, error) {
	r := newResolver(p)
	var tools []tool
	var errs ErrorList
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[string]string{}
	for _, n := range names {
		for _, d := range p.files[n].Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() {
				continue
			}
			t, err := toolOf(r, fn)
			pos := p.pos(fn.Pos())
			if err != nil {
				errs = append(errs, &Error{Pos: pos, Msg: fmt.Sprintf("tool %s: %v", fn.Name.Name, err)})
				continue
			}
			if prev, dup := seen[t.name]; dup {
				errs = append(errs, &Error{Pos: pos, Msg: fmt.Sprintf("tool name %s already used at %s", t.name, prev)})
				continue
			}
			seen[t.name] = pos
			t.pos = pos
			tools = append(tools, t)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(tools) == 0 {
		return nil, &Error{Pos: p.dir, Msg: "no tools: export at least one function"}
	}
	return tools, nil
}

func toolOf(r *resolver, fn *ast.FuncDecl) (tool, error) {
	t := tool{goName: fn.Name.Name, name: ToolName(fn.Name.Name), desc: strings.TrimSpace(fn.Doc.Text())}
	if t.desc == "" {
		return t, fmt.Errorf("needs a doc comment: it is the description the agent reads")
	}
	t.desc = stripGoName(t.desc, t.goName)
	ft := fn.Type
	if ft.TypeParams != nil {
		return t, fmt.Errorf("generic functions cannot be tools")
	}
	const want = "want func(args T) (R, error) or func() (R, error); helpers must be unexported"
	if n := ft.Params.NumFields(); n > 1 {
		return t, fmt.Errorf("takes %d parameters; %s", n, want)
	} else if n == 1 {
		id, ok := ft.Params.List[0].Type.(*ast.Ident)
		if _, basic := basicKinds[exprString(ft.Params.List[0].Type)]; !ok || basic {
			return t, fmt.Errorf("parameter must be a struct type declared in package tools; %s", want)
		}
		at, err := r.named(id)
		if err != nil {
			return t, err
		}
		if at.kind != kStruct {
			return t, fmt.Errorf("parameter type %s is not a struct", id.Name)
		}
		t.args = at
	}
	if ft.Results.NumFields() != 2 || len(ft.Results.List) != 2 {
		return t, fmt.Errorf("must return exactly (R, error); %s", want)
	}
	if id, ok := ft.Results.List[1].Type.(*ast.Ident); !ok || id.Name != "error" {
		return t, fmt.Errorf("second result must be error")
	}
	res, err := r.resolve(ft.Results.List[0].Type)
	if err != nil {
		return t, fmt.Errorf("result: %v", err)
	}
	t.result = res
	t.rawText = res.kind == kString
	return t, nil
}

// schema returns the JSON Schema of a tool's arguments, properties in
// declaration order.
func (t *tool) schema() json.RawMessage {
	var b bytes.Buffer
	if t.args == nil {
		b.WriteString(`{"type":"object","properties":{},"additionalProperties":false}`)
	} else {
		writeSchema(&b, t.args, "", nil)
	}
	return b.Bytes()
}

func writeSchema(b *bytes.Buffer, t *typ, desc string, enum []string) {
	b.WriteByte('{')
	switch t.kind {
	case kString:
		b.WriteString(`"type":"string"`)
	case kBool:
		b.WriteString(`"type":"boolean"`)
	case kInt, kUint:
		b.WriteString(`"type":"integer"`)
		if r, ok := intRanges[underlyingBasic(t)]; ok {
			fmt.Fprintf(b, `,"minimum":%d,"maximum":%d`, r[0], r[1])
		} else if t.kind == kUint {
			b.WriteString(`,"minimum":0`)
		}
	case kFloat, kNumber:
		b.WriteString(`"type":"number"`)
	case kPtr:
		b.Truncate(b.Len() - 1)
		writeSchema(b, t.elem, desc, enum)
		return
	case kSlice:
		b.WriteString(`"type":"array","items":`)
		writeSchema(b, t.elem, "", enum)
		enum = nil
	case kMap:
		b.WriteString(`"type":"object","additionalProperties":`)
		writeSchema(b, t.elem, "", nil)
	case kStruct:
		b.WriteString(`"type":"object","properties":{`)
		var required []string
		for i, f := range t.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, f.jsonName)
			b.WriteByte(':')
			writeSchema(b, f.t, f.desc, f.enum)
			if !f.optional {
				required = append(required, f.jsonName)
			}
		}
		b.WriteString(`}`)
		if len(required) > 0 {
			b.WriteString(`,"required":`)
			r, _ := json.Marshal(required)
			b.Write(r)
		}
		b.WriteString(`,"additionalProperties":false`)
	case kAny:
	}
	if len(enum) > 0 {
		e, _ := json.Marshal(enum)
		if b.Bytes()[b.Len()-1] != '{' {
			b.WriteByte(',')
		}
		b.WriteString(`"enum":`)
		b.Write(e)
	}
	if desc != "" {
		if b.Bytes()[b.Len()-1] != '{' {
			b.WriteByte(',')
		}
		b.WriteString(`"description":`)
		writeJSONString(b, desc)
	}
	b.WriteByte('}')
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// stripGoName drops the Go convention of starting a doc comment with the
// function's name, which means nothing to an agent: "GetOrder returns the
// order" becomes "Returns the order".
func stripGoName(desc, goName string) string {
	rest, ok := strings.CutPrefix(desc, goName+" ")
	if !ok || rest == "" {
		return desc
	}
	r := []rune(rest)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// intRanges bound the narrow integer kinds, so that the schema refuses a
// value the decoder would otherwise wrap (200 into an int8).
var intRanges = map[string][2]int64{
	"int8": {-1 << 7, 1<<7 - 1}, "int16": {-1 << 15, 1<<15 - 1}, "int32": {-1 << 31, 1<<31 - 1},
	"uint8": {0, 1<<8 - 1}, "byte": {0, 1<<8 - 1}, "rune": {-1 << 31, 1<<31 - 1}, "uint16": {0, 1<<16 - 1}, "uint32": {0, 1<<32 - 1},
}

// underlyingBasic is the basic type name of a basic or named basic type.
func underlyingBasic(t *typ) string {
	if t.named == "" {
		return t.gotype
	}
	return t.basic
}
