package toolgen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Options choose what to generate.
type Options struct {
	// ReadOnly leaves out create, update and delete.
	ReadOnly bool
	// MaxFilters bounds the filters of one list tool (default 12).
	MaxFilters int
}

// tableNames holds the identifiers used for one table.
type tableNames struct {
	t    *dbmodel.Table
	id   string            // snake plural: order_items
	sing string            // snake singular: order_item
	cols map[string]string // column → JSON parameter name
}

// Generate derives the toolset of a model and renders its Go source.
func Generate(m *dbmodel.Model, opts Options) (*Spec, error) {
	if opts.MaxFilters == 0 {
		opts.MaxFilters = 12
	}
	g := &gen{m: m, opts: opts, names: map[string]*tableNames{}, toolNames: namer{}}
	tn := namer{}
	for i, t := range m.Tables {
		id := tn.unique(ident(t.Name), fmt.Sprintf("table%c", 'a'+i%26))
		sing := ident(dbmodel.Singular(id))
		if sing == "" {
			sing = id
		}
		n := &tableNames{t: t, id: id, sing: sing, cols: map[string]string{}}
		cn := namer{}
		for _, c := range t.Columns {
			n.cols[c.Name] = cn.unique(ident(c.Name), "col")
		}
		g.names[t.Name] = n
	}
	spec := &Spec{Files: map[string][]byte{}, Model: m}
	for _, t := range m.Tables {
		tools := g.tableTools(t)
		for _, tl := range tools {
			uniqueParams(tl)
		}
		spec.Tools = append(spec.Tools, tools...)
	}
	for _, t := range m.Tables {
		var mine []*Tool
		for _, tool := range spec.Tools {
			if tool.Table == t.Name {
				mine = append(mine, tool)
			}
		}
		src, err := g.render(t, mine)
		if err != nil {
			return nil, fmt.Errorf("toolgen: table %s: %w", t.Name, err)
		}
		spec.Files[g.names[t.Name].id+".go"] = src
	}
	spec.Files["zz_common.go"] = []byte(commonSource)
	return spec, nil
}

type gen struct {
	m         *dbmodel.Model
	opts      Options
	names     map[string]*tableNames
	toolNames namer
}

func (g *gen) newTool(snake string, kind Kind, t *dbmodel.Table, doc string) *Tool {
	// Unique as the compiler will name it (compiler.ToolName of the Go name), which
	// can merge one-letter words: a_b and ab are both "ab".
	for {
		goName := camel(g.toolNames.unique(snake, "tool"))
		if name := compiler.ToolName(goName); !g.toolNames["="+name] {
			g.toolNames["="+name] = true
			return &Tool{Name: name, goName: goName, Kind: kind, Table: t.Name, Doc: doc}
		}
	}
}

// param makes the parameter for column c of table t.
func (g *gen) param(t *dbmodel.Table, c *dbmodel.Column, op Op, name string, required bool) Param {
	p := Param{Name: name, Op: op, Column: c.Name, Table: t.Name, Required: required}
	switch {
	case c.Bool:
		p.Type, p.goType = "boolean", "bool"
	case c.Kind == dbmodel.Integer:
		p.Type, p.goType = "integer", "int64"
	case c.Kind == dbmodel.Real:
		p.Type, p.goType = "number", "float64"
	default:
		p.Type, p.goType = "string", "string"
	}
	if op == OpEq || op == OpSet {
		p.Enum = c.Enum
	}
	if t.IsKey(c.Name) && len(t.PrimaryKey) == 1 {
		p.Ref = t.Name
	}
	if fk := t.ForeignKeyOf(c.Name); fk != nil {
		p.Ref = fk.RefTable
	}
	p.External = p.Ref == "" || g.m.Table(p.Ref).IsNatural(c.Name)
	if t.IsKey(c.Name) && len(t.PrimaryKey) > 1 && t.ForeignKeyOf(c.Name) == nil {
		p.External = true // part of a composite key that is plain data (a tag, a date)
	}
	what := plainWords(g.names[t.Name].sing) + "'s " + plainWords(g.names[t.Name].cols[c.Name])
	switch op {
	case OpKey, OpEq:
		p.Doc = "The " + what + "."
	case OpMin:
		p.Doc = "Only rows whose " + plainWords(g.names[t.Name].cols[c.Name]) + " is at least this."
	case OpMax:
		p.Doc = "Only rows whose " + plainWords(g.names[t.Name].cols[c.Name]) + " is at most this."
	case OpContains:
		p.Doc = "Only rows whose " + plainWords(g.names[t.Name].cols[c.Name]) + " contains this text (case-insensitive)."
	case OpSet:
		p.Doc = "The " + what + "."
		if c.Default != nil && !required {
			p.Doc += " Default: " + *c.Default + "."
		}
	}
	if p.Ref != "" && !p.External {
		p.Doc += " An internal id: look it up with another tool."
	}
	p.goName = camel(name)
	return p
}

func (g *gen) keyParams(t *dbmodel.Table) []Param {
	var ps []Param
	for _, c := range t.KeyColumns() {
		ps = append(ps, g.param(t, c, OpKey, g.names[t.Name].cols[c.Name], true))
	}
	return ps
}

func (g *gen) tableTools(t *dbmodel.Table) []*Tool {
	n := g.names[t.Name]
	var out []*Tool
	keyDesc := strings.Join(jsonNames(n, t.PrimaryKey), " and ")

	get := g.newTool("get_"+n.sing, Get, t, fmt.Sprintf("Returns the %s with the given %s.", plainWords(n.sing), keyDesc))
	get.Params = g.keyParams(t)
	out = append(out, get)

	for _, nk := range t.NaturalKeys {
		if t.IsKey(nk) && len(t.PrimaryKey) == 1 {
			continue // get_<table> already takes it
		}
		c := t.Column(nk)
		f := g.newTool("find_"+n.sing+"_by_"+n.cols[nk], Find, t,
			fmt.Sprintf("Finds the %s whose %s is the given value (case-insensitive). Use it to start from what a user says.", plainWords(n.sing), plainWords(n.cols[nk])))
		p := g.param(t, c, OpKey, n.cols[nk], true)
		p.External, p.Ref = true, ""
		f.Params = []Param{p}
		out = append(out, f)
	}

	out = append(out, g.listTool(t))

	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		p := g.m.Table(fk.RefTable)
		if len(fk.Columns) != 1 || p == nil || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] {
			continue // composite references are filters only
		}
		pn := g.names[p.Name]
		col := fk.Columns[0]
		role, of := roleOf(n.cols[col], pn, p)
		name := "list_" + n.id + "_by_" + role
		if of {
			name = "list_" + n.id + "_of_" + role
		}
		what := fmt.Sprintf("the %s of %s", plainWords(n.id), dbmodel.Article(plainWords(pn.sing)))
		if p.Name == t.Name { // "the staff of a staff" says nothing
			what = fmt.Sprintf("the %s whose %s is the given one", plainWords(n.id), plainWords(strings.TrimSuffix(n.cols[col], "_id")))
		}
		ch := g.newTool(name, Children, t, fmt.Sprintf("Lists %s (%s.%s refers to %s), paginated. Returns {items, total, offset}.",
			what, t.Name, col, p.Name))
		ch.Via, ch.Parent, ch.Many = fk, p.Name, true
		kp := g.param(t, t.Column(col), OpKey, n.cols[col], true)
		kp.Doc = fmt.Sprintf("The %s's %s.", plainWords(pn.sing), plainWords(pn.cols[p.PrimaryKey[0]]))
		if !kp.External {
			kp.Doc += " An internal id: look it up with another tool."
		}
		ch.Params = append([]Param{kp}, pageParams()...)
		out = append(out, ch)

		if len(t.PrimaryKey) > 0 {
			pt := g.newTool("get_"+role+"_of_"+n.sing, Parent, t, fmt.Sprintf("Returns the %s that %s refers to (through %s).",
				plainWords(pn.sing), dbmodel.Article(plainWords(n.sing)), plainWords(n.cols[col])))
			pt.Table = p.Name
			pt.Via = fk
			pt.Parent = t.Name // the table whose key is given
			pt.Params = g.keyParams(t)
			out = append(out, pt)
		}
	}

	if g.opts.ReadOnly {
		return out
	}
	if cr := g.createTool(t); cr != nil {
		out = append(out, cr)
	}
	up := g.newTool("update_"+n.sing, Update, t, fmt.Sprintf("Changes fields of the %s with the given %s; fields left out keep their value. Returns the updated %s.",
		plainWords(n.sing), keyDesc, plainWords(n.sing)))
	up.Params = g.keyParams(t)
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) && c.Kind != dbmodel.Blob {
			up.Params = append(up.Params, g.param(t, c, OpSet, n.cols[c.Name], false))
		}
	}
	if len(up.Params) > len(t.PrimaryKey) {
		out = append(out, up)
	}
	del := g.newTool("delete_"+n.sing, Delete, t, fmt.Sprintf("Deletes the %s with the given %s. Refused while other rows refer to it.", plainWords(n.sing), keyDesc))
	del.Params = g.keyParams(t)
	out = append(out, del)
	return out
}

// roleOf names a reference: the parent's singular when the column is named
// after it (customer_id → customer, "of"), else the column's stem
// (origin_airport_id → origin_airport, "by").
func roleOf(colIdent string, pn *tableNames, p *dbmodel.Table) (string, bool) {
	base := colIdent
	for _, suf := range []string{"_id", "id", "_code", "_key", "_no", "_number"} {
		if strings.HasSuffix(base, suf) && len(base) > len(suf) {
			base = strings.TrimSuffix(strings.TrimSuffix(base, suf), "_")
			break
		}
	}
	if base == pn.sing || base == pn.id || colIdent == pn.cols[p.PrimaryKey[0]] {
		return pn.sing, true
	}
	return base, false
}

func jsonNames(n *tableNames, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = n.cols[c]
	}
	return out
}

func pageParams() []Param {
	ps := []Param{
		{Name: "limit", Type: "integer", Op: OpLimit, External: true, Doc: "At most this many rows (1 to 100, default 20).", goName: "Limit", goType: "int64"},
		{Name: "offset", Type: "integer", Op: OpOffset, External: true, Doc: "Skip this many rows first (default 0).", goName: "Offset", goType: "int64"},
	}
	return ps
}

func dateLike(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "date") || strings.HasSuffix(l, "_at") || strings.Contains(l, "time") ||
		strings.HasSuffix(l, "_on") || strings.Contains(l, "day") || strings.Contains(l, "born")
}

func (g *gen) listTool(t *dbmodel.Table) *Tool {
	n := g.names[t.Name]
	l := g.newTool("list_"+n.id, List, t, fmt.Sprintf("Lists %s matching every filter given, sorted and paginated. Returns {items, total, offset}.", plainWords(n.id)))
	l.Many = true
	var filters []Param
	var sortable []string
	for _, c := range t.Columns {
		if c.Kind == dbmodel.Blob {
			continue
		}
		js := n.cols[c.Name]
		fk := t.ForeignKeyOf(c.Name)
		switch {
		case t.IsKey(c.Name) && len(t.PrimaryKey) == 1:
			sortable = append(sortable, c.Name)
		case c.Enum != nil || c.Bool || fk != nil:
			filters = append(filters, g.param(t, c, OpEq, js, false))
		case c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real || (c.Kind == dbmodel.Text && dateLike(c.Name)):
			filters = append(filters, g.param(t, c, OpMin, "min_"+js, false), g.param(t, c, OpMax, "max_"+js, false))
			sortable = append(sortable, c.Name)
		case c.Kind == dbmodel.Text && c.Name == t.Label || t.IsNatural(c.Name) || nameish(c.Name):
			filters = append(filters, g.param(t, c, OpContains, js+"_contains", false))
			sortable = append(sortable, c.Name)
		case c.Kind == dbmodel.Text && t.IsKey(c.Name):
			filters = append(filters, g.param(t, c, OpEq, js, false))
		}
	}
	if len(filters) > g.opts.MaxFilters {
		filters = filters[:g.opts.MaxFilters]
	}
	l.Params = filters
	if len(sortable) > 0 {
		var enum []string
		for _, c := range sortable {
			enum = append(enum, n.cols[c])
		}
		sort.Strings(enum)
		l.Params = append(l.Params,
			Param{Name: "sort_by", Type: "string", Op: OpSort, Enum: enum, External: true, Doc: "Sort by this field (default: the key).", goName: "SortBy", goType: "string"},
			Param{Name: "descending", Type: "boolean", Op: OpDesc, External: true, Doc: "Sort in descending order.", goName: "Descending", goType: "bool"})
	}
	l.Params = append(l.Params, pageParams()...)
	return l
}

func nameish(col string) bool {
	l := strings.ToLower(col)
	for _, s := range []string{"name", "title", "email", "city", "country", "label", "brand", "category", "tag"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func (g *gen) createTool(t *dbmodel.Table) *Tool {
	n := g.names[t.Name]
	cr := g.newTool("create_"+n.sing, Create, t, fmt.Sprintf("Creates %s and returns it.", dbmodel.Article(plainWords(n.sing))))
	for _, c := range t.Columns {
		if c.Generated {
			continue
		}
		required := c.NotNull && (c.Default == nil || nonDeterministicDefault(*c.Default))
		if c.Kind == dbmodel.Blob {
			if required {
				return nil // cannot be given through JSON arguments
			}
			continue
		}
		if nonDeterministicDefault(derefOr(c.Default)) {
			required = true
		}
		p := g.param(t, c, OpSet, n.cols[c.Name], required || t.IsKey(c.Name))
		cr.Params = append(cr.Params, p)
	}
	return cr
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nonDeterministicDefault: such defaults are refused in tool SQL (the
// episode clock is the only clock), so the value must be given.
func nonDeterministicDefault(d string) bool {
	u := strings.ToUpper(d)
	return strings.Contains(u, "CURRENT_") || strings.Contains(u, "NOW") || strings.Contains(u, "RANDOM")
}

// uniqueParams renames a parameter whose name an earlier one took (a
// column called "limit" next to the page size).
func uniqueParams(t *Tool) {
	seen := map[string]bool{}
	goSeen := map[string]bool{}
	fixed := func(p *Param) bool { // the generated code names these fields
		return p.Op == OpLimit || p.Op == OpOffset || p.Op == OpSort || p.Op == OpDesc
	}
	for i := range t.Params {
		if p := &t.Params[i]; fixed(p) {
			seen[p.Name], goSeen[p.goName] = true, true
		}
	}
	for i := range t.Params {
		p := &t.Params[i]
		if fixed(p) {
			continue
		}
		for seen[p.Name] || goSeen[p.goName] {
			p.Name += "_value"
			p.goName = camel(p.Name)
		}
		seen[p.Name], goSeen[p.goName] = true, true
	}
}
