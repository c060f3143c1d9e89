package dbmodel

import (
	"fmt"
	"strings"
)

// Kind is a column's value type as tools see it.
type Kind string

// Column kinds, from SQLite's type affinity (and the data, where the
// declared type says nothing).
const (
	Integer Kind = "integer"
	Real    Kind = "real"
	Text    Kind = "text"
	Blob    Kind = "blob"
)

// Model is a database's tables, in database order.
type Model struct {
	Tables []*Table `json:"tables"`
	// Views are the source's views, read-only: columns and statistics, no
	// key.
	Views []*Table `json:"views,omitempty"`
	// Skipped names what of the source was left out or changed, with the
	// reason (a reference the data breaks, a declared type SQLite would not
	// parse back, a view that does not compile).
	Skipped []string `json:"skipped,omitempty"`
}

// skip records something left out.
func (m *Model) skip(format string, args ...any) {
	msg := CommentText(fmt.Sprintf(format, args...))
	for _, s := range m.Skipped {
		if s == msg {
			return // said once (tools are generated again after a smoke failure)
		}
	}
	m.Skipped = append(m.Skipped, msg)
}

// Skip records something left out, with its reason.
func (m *Model) Skip(format string, args ...any) { m.skip(format, args...) }

// Table is one table.
type Table struct {
	Name    string    `json:"name"`
	Columns []*Column `json:"columns"`
	// PrimaryKey names the key columns in key order. For a table without a
	// declared key it is [RowIDColumn] and RowID is true: the emitted schema
	// adds that column, holding the original rowid.
	PrimaryKey  []string     `json:"primary_key"`
	RowID       bool         `json:"rowid_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	Uniques     [][]string   `json:"uniques,omitempty"` // multi-column UNIQUE constraints
	Checks      []string     `json:"checks,omitempty"`  // CHECK expressions, without comments
	// WithoutRowID, Strict and AutoIncrement are kept in the emitted table.
	WithoutRowID  bool  `json:"without_rowid,omitempty"`
	Strict        bool  `json:"strict,omitempty"`
	AutoIncrement bool  `json:"autoincrement,omitempty"`
	Rows          int64 `json:"rows"`
	// NaturalKeys are unique, human-readable columns (names, emails, codes)
	// by which a user would identify a row, best first.
	NaturalKeys []string `json:"natural_keys,omitempty"`
	// KeyIsNatural: the (text) primary key is the natural key, for want of
	// another: the get tool is where a user starts.
	KeyIsNatural bool `json:"key_is_natural,omitempty"`
	// MaintainedBy names the trigger that writes this table (an audit
	// log): tools read it but do not offer to write it by hand.
	MaintainedBy string `json:"maintained_by,omitempty"`
	// ComboKey, for a table no single column names, is two columns a
	// person says that together tell every row apart (combo.go).
	ComboKey []string `json:"combo_key,omitempty"`
	// Label is the column that names a row in prose (a natural key, or a
	// name-like column), "" when none.
	Label string `json:"label,omitempty"`
}

// Column is one column.
type Column struct {
	Name     string `json:"name"`
	DeclType string `json:"decl_type,omitempty"`
	Kind     Kind   `json:"kind"`
	NotNull  bool   `json:"not_null,omitempty"`
	// Default is the DEFAULT expression as written, nil when none.
	Default *string `json:"default,omitempty"`
	PK      int     `json:"pk,omitempty"` // 1-based position in the primary key
	Unique  bool    `json:"unique,omitempty"`
	// Enum lists the allowed values: from a CHECK (col IN (...)) constraint,
	// or the distinct values of a low-cardinality text column (EnumInferred).
	Enum         []string `json:"enum,omitempty"`
	EnumInferred bool     `json:"enum_inferred,omitempty"`
	// Bool marks an integer column holding only 0 and 1.
	Bool bool `json:"bool,omitempty"`
	// TimeLayout is the Go time layout of a text column whose values are
	// dates or times all written in one form ("2006-01-02T15:04:05"), ""
	// otherwise (timelayout.go).
	TimeLayout string `json:"time_layout,omitempty"`
	// Latest is the latest time among the values of a column with a
	// TimeLayout, in UTC as RFC 3339 ("" when none reads as a time).
	Latest string `json:"latest,omitempty"`
	// Statistics over the data.
	Nulls    int64 `json:"nulls"`
	Distinct int64 `json:"distinct"`
	// MaxLen is the longest value's length (characters for text).
	MaxLen int64 `json:"max_len,omitempty"`
	// Generated marks a rowid alias (INTEGER PRIMARY KEY): left out of
	// create tools, SQLite assigns it.
	Generated bool `json:"generated,omitempty"`
	// Computed is 2 for a virtual and 3 for a stored generated column
	// (GENERATED ALWAYS AS (Expr)), 0 for a plain one. Tools read it and
	// never write it; the seed leaves it out.
	Computed int64  `json:"computed,omitempty"`
	Expr     string `json:"expr,omitempty"`
	// Opaque says what kind of value no person says the column holds ("a
	// GUID", "a hash", "a token", "a long float"), "" for sayable values
	// (opaque.go).
	Opaque string `json:"opaque,omitempty"`
	// Derived says how the data computes the column from others of its
	// row ("quantity * unit_price", "score scaled"), "" when it does not.
	Derived string `json:"derived,omitempty"`
	// ReferencedBy names the columns ("orders.customer_id") whose
	// references, declared or inferred, point to this one: editing it
	// would break them.
	ReferencedBy []string `json:"referenced_by,omitempty"`
}

// Writable reports whether tools and the seed may write the column.
func (c *Column) Writable() bool { return c.Computed == 0 }

// ForeignKey is a reference from Columns to RefTable's RefColumns.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
	// Inferred is set for a reference found from names and values rather
	// than declared; Reason says how.
	Inferred bool   `json:"inferred,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// RowIDColumn is the key column added to a table that has no declared key.
const RowIDColumn = "row_id"

// Table returns the table named name, or nil.
func (m *Model) Table(name string) *Table {
	for _, t := range m.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// View returns the view named name, or nil.
func (m *Model) View(name string) *Table {
	for _, t := range m.Views {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Column returns the column named name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// KeyColumns returns the primary-key columns in key order.
func (t *Table) KeyColumns() []*Column {
	out := make([]*Column, 0, len(t.PrimaryKey))
	for _, k := range t.PrimaryKey {
		out = append(out, t.Column(k))
	}
	return out
}

// IsKey reports whether col is one of the primary-key columns.
func (t *Table) IsKey(col string) bool {
	for _, k := range t.PrimaryKey {
		if k == col {
			return true
		}
	}
	return false
}

// ForeignKeyOf returns the single-column foreign key on col, or nil.
func (t *Table) ForeignKeyOf(col string) *ForeignKey {
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		if len(fk.Columns) == 1 && fk.Columns[0] == col {
			return fk
		}
	}
	return nil
}

// Singular is the table name as one row is called ("order_items" →
// "order_item").
func (t *Table) Singular() string { return Singular(t.Name) }

// Singular turns a plural snake_case name into a singular one, by the
// common English rules; names it does not recognize stay as they are.
func Singular(name string) string {
	i := strings.LastIndex(name, "_")
	head, last := name[:i+1], name[i+1:]
	l := strings.ToLower(last)
	switch {
	case l == "series" || l == "species" || l == "news":
		// the same in the singular ("recurring_series", not "recurring_sery")
	case strings.HasSuffix(l, "ies") && len(l) > 4:
		last = last[:len(last)-3] + "y"
	case strings.HasSuffix(l, "sses"), strings.HasSuffix(l, "xes"), strings.HasSuffix(l, "ches"), strings.HasSuffix(l, "shes"):
		last = last[:len(last)-2]
	case strings.HasSuffix(l, "ss"), strings.HasSuffix(l, "us"), strings.HasSuffix(l, "is"):
	case strings.HasSuffix(l, "s") && len(l) > 2:
		last = last[:len(last)-1]
	}
	return head + last
}

// ForeignKeyRef returns the table that col refers to, or "".
func (t *Table) ForeignKeyRef(col string) string {
	if fk := t.ForeignKeyOf(col); fk != nil {
		return fk.RefTable
	}
	return ""
}
