package toolgen

import "github.com/wasmenv/wasmenv/synth/dbmodel"

// Kind is what a tool does.
type Kind string

// Tool kinds.
const (
	Get      Kind = "get"      // one row by primary key
	Find     Kind = "find"     // one row by a natural key
	List     Kind = "list"     // rows with filters, sorting, pagination
	Children Kind = "children" // rows referring to a parent row (list_orders_of_customer)
	Parent   Kind = "parent"   // the row a row refers to (get_customer_of_order)
	Create   Kind = "create"
	Update   Kind = "update"
	Delete   Kind = "delete"
	View     Kind = "view" // rows of a view, with filters (read-only)
	// DomainAction is a thing a person does in the domain (cancel, return,
	// add a line that takes stock): one transaction that checks its rules
	// (Tool.Action) before it writes.
	DomainAction Kind = "action"
)

// Writes reports whether tools of this kind change the state.
func (k Kind) Writes() bool { return k == Create || k == Update || k == Delete || k == DomainAction }

// Op is how a parameter is used.
type Op string

// Parameter operations.
const (
	OpKey      Op = "key"      // equality on a key column of Tool.Table (or, for Children, of the parent)
	OpEq       Op = "eq"       // equality filter
	OpMin      Op = "min"      // column >= value
	OpMax      Op = "max"      // column <= value
	OpContains Op = "contains" // case-insensitive substring
	OpSet      Op = "set"      // value written by create or update
	OpSort     Op = "sort"     // sort_by
	OpDesc     Op = "desc"     // descending
	OpLimit    Op = "limit"
	OpOffset   Op = "offset"
)

// Param is one tool parameter.
type Param struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"` // JSON Schema type: string, integer, number, boolean
	Required bool     `json:"required,omitempty"`
	Op       Op       `json:"op"`
	Column   string   `json:"column,omitempty"` // the column it reads or writes
	Table    string   `json:"table,omitempty"`  // the column's table
	Enum     []string `json:"enum,omitempty"`
	// Ref is the table whose primary key this parameter holds ("" when it
	// is not an id): the key of Tool.Table or the target of a reference.
	Ref string `json:"ref,omitempty"`
	// External: a user could say it (a name, a city, a date, a status);
	// internal: an id the agent must look up first.
	External bool `json:"external"`
	// Stamp: a create tool's bookkeeping time (last_update, created_at,
	// LastModified), filled from the episode clock when left out: the
	// application stamps it, the agent does not make it up.
	Stamp bool `json:"stamp,omitempty"`
	// StampLayout is the Go time layout the stamp is written in: the
	// column's own (dbmodel.Column.TimeLayout), else CURRENT_TIMESTAMP's.
	StampLayout string `json:"stamp_layout,omitempty"`
	Doc         string `json:"doc"`
	// Items are the fields of each element of an OpLines parameter.
	Items  []Param `json:"items,omitempty"`
	goName string
	goType string
}

// Tool is one generated tool.
type Tool struct {
	Name   string  `json:"name"`
	Kind   Kind    `json:"kind"`
	Table  string  `json:"table"` // the table it returns rows of (or writes)
	Doc    string  `json:"description"`
	Params []Param `json:"params"`
	Many   bool    `json:"many,omitempty"` // returns {items, total}
	// Via is the reference a Children or Parent tool follows.
	Via    *dbmodel.ForeignKey `json:"via,omitempty"`
	Parent string              `json:"parent,omitempty"` // Children: the parent table
	// Action is what a DomainAction checks and moves.
	Action *Action `json:"action,omitempty"`
	goName string
}

// Spec is a generated toolset.
type Spec struct {
	Tools []*Tool `json:"tools"`
	// Files are the Go sources by file name (tools/<name>).
	Files map[string][]byte `json:"-"`
	// Model is the database model the tools were made from.
	Model *dbmodel.Model `json:"-"`
	// Scope is what the served person may change (the domain toolset's
	// Options.Scope; nil: no limit).
	Scope *Scope `json:"scope,omitempty"`
	// Figures are the measures and groups of the tables (Options.Figures).
	Figures   []Figures `json:"figures,omitempty"`
	FiguresBy string    `json:"figures_by,omitempty"`
}

// Tool returns the tool named name, or nil.
func (s *Spec) Tool(name string) *Tool {
	for _, t := range s.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Param returns the parameter named name, or nil.
func (t *Tool) Param(name string) *Param {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i]
		}
	}
	return nil
}

// Required lists the required parameters.
func (t *Tool) Required() []*Param {
	var out []*Param
	for i := range t.Params {
		if t.Params[i].Required {
			out = append(out, &t.Params[i])
		}
	}
	return out
}
