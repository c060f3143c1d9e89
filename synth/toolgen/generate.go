package toolgen

import (
	"cmp"
	"fmt"
	"slices"
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
	// Drop names tools to leave out (a tool that failed its smoke test);
	// the others keep their names.
	Drop map[string]bool
	// Toolset is ToolsetCRUD ("" too) or ToolsetDomain.
	Toolset string
	// Totals are the parent columns the data shows to be the sum of their
	// lines, by parent table: a place_ action computes them.
	Totals map[string]Total
	// Designed are actions a model designed over the data (the model
	// route, synth/design): rendered beside the schema's own, in place of
	// the schema's action on the same column.
	Designed []Designed
	// Opens are the open actions (RuleOpen) by table, with the rules the
	// data keeps (CheckOpen on the source).
	Opens map[string]*Open
	// Scope, for the domain toolset, is what the served person may
	// change: no plain write and no action outside it is offered (nil:
	// no limit).
	Scope *Scope
	// Declined are the actions the design left out: the schema's own
	// action on the same table and column is not offered either.
	Declined []Declined
	// Figures name each table's measures and groups (figures.go): a
	// group's list filter takes an exact value.
	Figures []Figures
	// FiguresBy says who named the figures (FiguresByDesign: the design
	// decides which numbers add up, for every table).
	FiguresBy string
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
	domain := false
	switch opts.Toolset {
	case "", ToolsetCRUD:
	case ToolsetDomain:
		domain = true
	default:
		return nil, fmt.Errorf("toolgen: unknown toolset %q (want %s or %s)", opts.Toolset, ToolsetCRUD, ToolsetDomain)
	}
	if opts.MaxFilters == 0 {
		opts.MaxFilters = 12
		if domain {
			opts.MaxFilters = 6 // the filters people use; every one is schema in every prompt
		}
	}
	g := &gen{m: m, opts: opts, names: map[string]*tableNames{}, toolNames: namer{}, acted: map[string]bool{}, domain: domain}
	tn := namer{}
	for i, t := range append(slices.Clip(m.Tables), m.Views...) {
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
		for _, tl := range tools {
			if !opts.Drop[tl.Name] {
				spec.Tools = append(spec.Tools, tl)
			}
		}
	}
	for _, v := range m.Views {
		l := g.listTool(v)
		l.Kind = View
		l.Doc = fmt.Sprintf("Lists rows of the view %s (read-only) matching every filter given, sorted and paginated. Returns {items, total, offset}.", plainWords(g.names[v.Name].id))
		uniqueParams(l)
		if !opts.Drop[l.Name] {
			spec.Tools = append(spec.Tools, l)
		}
	}
	if domain {
		spec.Tools = g.selectDomain(ungoverned(spec.Tools))
		spec.Scope = opts.Scope
	}
	spec.Figures, spec.FiguresBy = opts.Figures, opts.FiguresBy
	for _, t := range append(slices.Clip(m.Tables), m.Views...) {
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
		// "_tools.go": a table named x_test, x_windows or x_amd64 must not
		// give a file the Go tool skips, nor one named like zz_common.go.
		spec.Files[shorten(g.names[t.Name].id, maxToolName)+"_tools.go"] = src
	}
	spec.Files["zz_common.go"] = []byte(commonSource)
	return spec, nil
}

type gen struct {
	m         *dbmodel.Model
	opts      Options
	names     map[string]*tableNames
	toolNames namer
	domain    bool            // the domain toolset
	acted     map[string]bool // tables an action adds rows to
}

func (g *gen) newTool(snake string, kind Kind, t *dbmodel.Table, doc string) *Tool {
	// Unique as the compiler will name it (compiler.ToolName of the Go name), which
	// can merge one-letter words: a_b and ab are both "ab". A name over
	// maxToolName is shortened (with room for the x's that keep it unique)
	// and the summary says so.
	short, limit := snake, maxToolName
	for {
		goName := camel(g.toolNames.unique(short, "tool"))
		name := compiler.ToolName(goName)
		if len(name) > maxToolName && limit > 16 {
			limit -= 4
			short = shorten(snake, limit)
			continue
		}
		if !g.toolNames["="+name] {
			g.toolNames["="+name] = true
			if short != snake {
				g.m.Skip("tool %s: a name of %d characters, over the %d a tool name may have; shortened to %s", snake, len(snake), maxToolName, name)
			}
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
			p.Doc += " Default: " + dbmodel.CommentText(*c.Default) + "."
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
			if p != nil {
				g.m.Skip("reference %s.%s → %s: not to the parent's one-column key; no follow tools (the columns stay filters)", t.Name, strings.Join(fk.Columns, ","), fk.RefTable)
			}
			continue
		}
		pn := g.names[p.Name]
		col := fk.Columns[0]
		role, of := roleOf(n.cols[col], pn, p)
		name := "list_" + n.id + "_by_" + role
		if of {
			name = "list_" + n.id + "_of_" + role
		}
		doc := fmt.Sprintf("Lists the %s of the given %s (%s.%s refers to %s), paginated. Returns {items, total, offset}.",
			plainWords(n.id), plainWords(pn.sing), t.Name, col, p.Name)
		if !of { // a role: "the staff whose supervisor is the given staff"
			doc = fmt.Sprintf("Lists the %s whose %s is the given %s (%s.%s refers to %s), paginated. Returns {items, total, offset}.",
				plainWords(n.id), plainWords(role), plainWords(pn.sing), t.Name, col, p.Name)
		}
		ch := g.newTool(name, Children, t, doc)
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
	if t.MaintainedBy != "" {
		g.m.Skip("table %s: written by trigger %s; no create, update or delete tools (the database keeps it)", t.Name, t.MaintainedBy)
		return out
	}
	if cr := g.createTool(t); cr != nil {
		out = append(out, cr)
	}
	out = append(out, g.actionTools(t)...)
	up := g.newTool("update_"+n.sing, Update, t, fmt.Sprintf("Changes fields of the %s with the given %s; fields left out keep their value. Returns the updated %s.",
		plainWords(n.sing), keyDesc, plainWords(n.sing)))
	up.Params = g.keyParams(t)
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) && c.Kind != dbmodel.Blob && c.Writable() && !(g.domain && Stamp(c)) {
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

func (g *gen) createTool(t *dbmodel.Table) *Tool {
	n := g.names[t.Name]
	params, ok := g.createParams(t)
	if !ok {
		return nil
	}
	cr := g.newTool("create_"+n.sing, Create, t, fmt.Sprintf("Creates %s and returns it.", dbmodel.Article(plainWords(n.sing))))
	cr.Params = params
	return cr
}

// createParams are the parameters of a tool that inserts a row of t (a
// create, or an action that adds a line); false when a required column
// cannot be given (a BLOB).
func (g *gen) createParams(t *dbmodel.Table) ([]Param, bool) {
	n := g.names[t.Name]
	var params []Param
	for _, c := range t.Columns {
		if c.Generated || !c.Writable() {
			continue
		}
		required := c.NotNull && (c.Default == nil || nonDeterministicDefault(*c.Default))
		if c.Kind == dbmodel.Blob {
			if required {
				g.m.Skip("table %s: no create tool: column %s is a required BLOB, and tools take JSON arguments", t.Name, c.Name)
				return nil, false
			}
			continue
		}
		if nonDeterministicDefault(derefOr(c.Default)) {
			required = true
		}
		stamp := Stamp(c) && !t.IsKey(c.Name) && t.ForeignKeyOf(c.Name) == nil
		if stamp {
			required = false
		}
		p := g.param(t, c, OpSet, n.cols[c.Name], required || t.IsKey(c.Name))
		if stamp {
			p.Stamp, p.StampLayout = true, cmp.Or(c.TimeLayout, defaultLayout(derefOr(c.Default)))
			p.Doc += " Left out, the time of the call."
		}
		params = append(params, p)
	}
	return params, true
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// timeDefault: a DEFAULT that is the time of the insert, in SQLite's
// forms (CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, datetime('now'),
// strftime('%s', 'now'), ...).
func timeDefault(d string) bool {
	u := strings.ToUpper(d)
	return strings.Contains(u, "CURRENT_TIMESTAMP") || strings.Contains(u, "CURRENT_DATE") ||
		strings.Contains(u, "CURRENT_TIME") || strings.Contains(u, "'NOW'") || strings.Contains(u, "\"NOW\"")
}

// defaultLayout is the Go layout of a time DEFAULT's value ("" when it is
// not one of SQLite's CURRENT_ keywords): what a stamp is written in when
// the column's values show no form of their own.
func defaultLayout(d string) string {
	switch strings.ToUpper(strings.Trim(strings.TrimSpace(d), "()")) {
	case "CURRENT_DATE":
		return "2006-01-02"
	case "CURRENT_TIME":
		return "15:04:05"
	}
	return ""
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

// currentTimestamp is the layout of SQLite's CURRENT_TIMESTAMP: a stamp's
// when its column's values show no form of their own (StampLayout "").
const currentTimestamp = "2006-01-02 15:04:05"

// Stamp: c is the time the application writes a row at (last_update,
// LastModified, created_at): a text or date column named for it, or one of
// any name whose DEFAULT is the time (logged_at DEFAULT CURRENT_TIMESTAMP).
// A create tool fills it from the episode clock, the way the application
// (or the DEFAULT) would; no one asks the user for it.
func Stamp(c *dbmodel.Column) bool {
	if c.Kind != dbmodel.Text || len(c.Enum) > 0 {
		return false
	}
	if c.Default != nil && timeDefault(*c.Default) {
		return true
	}
	l := strings.ToLower(strings.ReplaceAll(c.Name, "_", ""))
	switch l {
	case "lastupdate", "lastupdated", "updatedat", "lastmodified", "modifiedat", "modifieddate", "createdat", "createdon", "datecreated", "createdate", "creationdate":
		return true
	}
	return false
}
