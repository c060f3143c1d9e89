package emit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Object is a schema object of the source other than a table: an index,
// a view or a trigger, with its SQL as the source stores it.
type Object struct {
	Type string // index, view, trigger
	Name string
	// Table is the table an index or trigger is on.
	Table string
	SQL   string
}

// ErrSchema is returned when the emitted schema would not create exactly
// the objects it names.
var ErrSchema = errors.New("emit: the generated schema does not match the source")

// CheckSchema tries the model's tables and the given objects in a scratch
// database, as SQLite will read them, and keeps what it accepts. A table
// SQLite refuses loses, in this order, its CHECKs (one at a time), its
// DEFAULTs, then its declared types; a table still refused is dropped with
// the references to it. An object is kept only when its SQL, without
// comments, is one statement that creates that one object. Everything
// left out is named in m.Skipped.
func CheckSchema(m *dbmodel.Model, objects []Object) ([]Object, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
	for _, t := range slices.Clone(m.Tables) {
		if err := fitTable(conn, m, t); err != nil {
			m.Skip("table %s: SQLite refuses its definition (%v); left out", t.Name, err)
			dropTable(m, t.Name)
		}
	}
	var kept []Object
	for _, o := range objects {
		if o.Type == "view" && m.View(o.Name) == nil {
			continue // dbmodel could not read it, and said why
		}
		if o.Table != "" && m.Table(o.Table) == nil {
			m.Skip("%s %s: on table %s, which was left out", o.Type, o.Name, o.Table)
			continue
		}
		if o.Type == "trigger" {
			if missing := missingTarget(m, o.SQL); missing != "" {
				m.Skip("trigger %s: writes table %s, which was left out; left out", o.Name, missing)
				continue
			}
		}
		if r := dbmodel.FormatChar(o.Name + o.SQL); r >= 0 {
			m.Skip("%s %s: its SQL holds the format character %U, which would display as other text; left out", o.Type, o.Name, r)
			dropView(m, o)
			continue
		}
		sql, ok := stripSQL(o.SQL)
		if !ok {
			m.Skip("%s %s: its SQL is not one statement; left out", o.Type, o.Name)
			dropView(m, o)
			continue
		}
		if err := createsOnly(conn, sql, o.Type, o.Name); err != nil {
			m.Skip("%s %s: %v; left out", o.Type, o.Name, err)
			dropView(m, o)
			continue
		}
		if o.Type == "view" {
			// A view over a missing table is created, then fails on use.
			if stmt, _, err := conn.Prepare("SELECT * FROM " + dbmodel.Quote(o.Name) + " LIMIT 0"); err != nil {
				m.Skip("view %s: %v; left out", o.Name, err)
				dropObject(conn, "VIEW", o.Name)
				dropView(m, o)
				continue
			} else {
				stmt.Close()
			}
		}
		if o.Type == "trigger" {
			// SQLite compiles a trigger's body with the statement that
			// fires it: prepare one of each kind (nothing runs) so that a
			// body naming what does not exist is found now, not by every
			// write to its table.
			if err := firesCleanly(conn, m.Table(o.Table)); err != nil {
				m.Skip("trigger %s: %v; left out", o.Name, err)
				dropObject(conn, "TRIGGER", o.Name)
				continue
			}
		}
		o.SQL = sql
		kept = append(kept, o)
	}
	return kept, nil
}

// fitTable creates t in conn, taking away what SQLite refuses.
func fitTable(conn *sqlite3.Conn, m *dbmodel.Model, t *dbmodel.Table) error {
	try := func() error { return createsOnly(conn, TableSQL(t), "table", t.Name) }
	err := try()
	if err == nil {
		return nil
	}
	if len(t.Checks) > 0 {
		all := t.Checks
		t.Checks = nil
		if try() == nil {
			dropObject(conn, "TABLE", t.Name)
			for _, c := range all {
				t.Checks = append(t.Checks, c)
				if e := try(); e != nil {
					t.Checks = t.Checks[:len(t.Checks)-1]
					m.Skip("%s: CHECK (%s) refused by SQLite (%v); left out", t.Name, c, e)
				} else {
					dropObject(conn, "TABLE", t.Name)
				}
			}
			return try()
		}
		t.Checks = all
	}
	for _, c := range t.Columns {
		if c.Default != nil {
			d := *c.Default
			c.Default = nil
			if e := try(); e == nil {
				m.Skip("%s.%s: DEFAULT %s refused by SQLite (%v); left out", t.Name, c.Name, d, err)
				return nil
			}
			c.Default = &d
		}
	}
	for _, c := range t.Columns {
		if c.DeclType != "" && c.Computed == 0 {
			d := c.DeclType
			c.DeclType = strings.ToUpper(string(c.Kind))
			if e := try(); e == nil {
				m.Skip("%s.%s: declared type %s refused by SQLite (%v); written as %s", t.Name, c.Name, d, err, c.DeclType)
				return nil
			}
			c.DeclType = d
		}
	}
	return err
}

// createsOnly runs sql, one statement, and checks that it created exactly
// the object typ name and nothing else.
func createsOnly(conn *sqlite3.Conn, sql, typ, name string) error {
	before, err := schemaObjects(conn)
	if err != nil {
		return err
	}
	stmt, tail, err := conn.Prepare(sql)
	if err != nil {
		return err
	}
	if stmt == nil {
		return errors.New("no statement")
	}
	err = stmt.Exec()
	stmt.Close()
	if err != nil {
		return err
	}
	if rest, _ := stripSQL(tail); rest != "" {
		return errors.New("more than one statement")
	}
	after, err := schemaObjects(conn)
	if err != nil {
		return err
	}
	var added []string
	for _, o := range after {
		if !slices.Contains(before, o) && !strings.HasPrefix(o, "index sqlite_autoindex_") && !strings.HasPrefix(o, "table sqlite_") {
			added = append(added, o)
		}
	}
	if len(added) != 1 || added[0] != typ+" "+name {
		return fmt.Errorf("creates %q, not %s %s", added, typ, name)
	}
	return nil
}

// schemaObjects lists "type name" of every schema object.
func schemaObjects(conn *sqlite3.Conn) ([]string, error) {
	stmt, _, err := conn.Prepare(`SELECT type || ' ' || name FROM sqlite_schema ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out, stmt.Err()
}

func dropObject(conn *sqlite3.Conn, typ, name string) {
	conn.Exec("DROP " + typ + " " + dbmodel.Quote(name))
}

// dropTable removes a table from the model with the references to it.
func dropTable(m *dbmodel.Model, name string) {
	m.Tables = slices.DeleteFunc(m.Tables, func(t *dbmodel.Table) bool { return t.Name == name })
	for _, t := range m.Tables {
		t.ForeignKeys = slices.DeleteFunc(t.ForeignKeys, func(fk dbmodel.ForeignKey) bool { return fk.RefTable == name })
	}
}

// firesCleanly prepares an INSERT, an UPDATE and a DELETE on t, which
// compiles the bodies of its triggers.
func firesCleanly(conn *sqlite3.Conn, t *dbmodel.Table) error {
	if t == nil || len(t.Columns) == 0 {
		return nil
	}
	var col string
	for _, c := range t.Columns {
		if c.Writable() && !t.RowID {
			col = dbmodel.Quote(c.Name)
			break
		}
	}
	q := dbmodel.Quote(t.Name)
	stmts := []string{"INSERT INTO " + q + " DEFAULT VALUES", "DELETE FROM " + q}
	if col != "" {
		stmts = append(stmts, "UPDATE "+q+" SET "+col+" = "+col)
	}
	for _, sql := range stmts {
		stmt, _, err := conn.Prepare(sql)
		if err != nil {
			return err
		}
		stmt.Close()
	}
	return nil
}

// missingTarget returns a table a trigger writes that the model lacks
// (SQLite resolves a trigger's body only when it fires: every write to
// its table would fail), or "".
func missingTarget(m *dbmodel.Model, sql string) string {
	for _, t := range dbmodel.TriggerTargets(sql) {
		found := false
		for _, mt := range m.Tables {
			found = found || strings.EqualFold(mt.Name, t)
		}
		if !found {
			return t
		}
	}
	return ""
}

func dropView(m *dbmodel.Model, o Object) {
	if o.Type == "view" {
		m.Views = slices.DeleteFunc(m.Views, func(t *dbmodel.Table) bool { return t.Name == o.Name })
	}
}

// stripSQL is dbmodel's comment stripper for a whole statement: a
// statement may end with one ';'.
func stripSQL(sql string) (string, bool) {
	s := strings.TrimSpace(sql)
	// A trailing ';' ends the statement; any other makes it two.
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return dbmodel.StripStatement(s)
}

// VerifySchema runs schema (and the triggers created after the seed) in
// a scratch database and checks that it creates exactly the model's
// tables, the given objects and the indexes it adds on references: no
// object appears that was not in the source.
func VerifySchema(m *dbmodel.Model, schema string, objects []Object) error {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
	if err := conn.Exec(schema); err != nil {
		return fmt.Errorf("%w: %v", ErrSchema, err)
	}
	var indexes []string
	for _, o := range objects {
		if o.Type == "trigger" {
			if err := conn.Exec(o.SQL); err != nil {
				return fmt.Errorf("%w: %s %s: %v", ErrSchema, o.Type, o.Name, err)
			}
		}
		if o.Type == "index" {
			indexes = append(indexes, o.SQL)
		}
	}
	got, err := schemaObjects(conn)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, t := range m.Tables {
		want["table "+t.Name] = true
	}
	for _, ix := range referenceIndexes(m, indexes) {
		want["index "+ix.Name] = true
	}
	for _, o := range objects {
		want[o.Type+" "+o.Name] = true
	}
	for _, o := range got {
		if strings.HasPrefix(o, "index sqlite_autoindex_") || strings.HasPrefix(o, "table sqlite_") {
			continue
		}
		if !want[o] {
			return fmt.Errorf("%w: it creates %s", ErrSchema, o)
		}
		delete(want, o)
	}
	return nil
}
