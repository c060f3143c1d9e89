package dbmodel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// ErrNoTables is returned for a database without user tables.
var ErrNoTables = errors.New("dbmodel: the database has no tables")

// Options tune the inference.
type Options struct {
	// MaxEnum is the largest number of distinct values a text column may have
	// to become an enumeration (default 12).
	MaxEnum int
	// NoInferFK turns off foreign-key inference.
	NoInferFK bool
	// IgnoreDeclaredReferences reads the database as if it declared no
	// foreign keys: to measure how many references inference recovers.
	IgnoreDeclaredReferences bool
	// Progress, if set, is told after each table is read (done of total).
	Progress func(done, total int)
	// Context, when set, ends reading when it is done.
	Context context.Context
	// WorkLimit bounds each query's work (see Guard; 0: DefaultWorkLimit).
	// A query over it ends reading with a *WorkLimitError.
	WorkLimit int64
}

// Open opens a SQLite file read-only and reads its model.
func Open(path string, opts Options) (*Model, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("dbmodel: %w", err)
	}
	// A plain path, not a URI: a file name with '#' or '%41' is that file.
	conn, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY)
	if err != nil {
		return nil, fmt.Errorf("dbmodel: open %s: %w", path, err)
	}
	defer conn.Close()
	return Read(conn, opts)
}

// Read reads the model of the main database of an open connection.
func Read(conn *sqlite3.Conn, opts Options) (*Model, error) {
	if opts.MaxEnum == 0 {
		opts.MaxEnum = 12
	}
	defer Guard(cmp.Or[context.Context](opts.Context, context.Background()), conn, opts.WorkLimit)()
	names, err := queryStrings(conn, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("dbmodel: %w (is it a SQLite database?)", err)
	}
	if len(names) == 0 {
		return nil, ErrNoTables
	}
	m := &Model{}
	virtual, err := queryStrings(conn, `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'`)
	if err != nil {
		return nil, fmt.Errorf("dbmodel: %w", err)
	}
	for i, name := range names {
		if opts.Progress != nil {
			opts.Progress(i, len(names))
		}
		if r := FormatChar(name); r >= 0 {
			m.skip("table %s: its name holds the format character %U, which would display as other text; left out", name, r)
			continue
		}
		if slices.Contains(virtual, name) {
			m.skip("table %s: a virtual table (its module's data is not copied)", name)
			continue
		}
		if shadow := shadowOf(name, virtual); shadow != "" {
			m.skip("table %s: holds the data of virtual table %s", name, shadow)
			continue
		}
		t, err := readTable(conn, m, name, opts)
		if Fatal(err) {
			return nil, fmt.Errorf("dbmodel: table %s: %w", CommentText(name), err)
		} else if err != nil {
			m.skip("table %s: %v", name, err)
			continue
		}
		m.Tables = append(m.Tables, t)
	}
	if opts.Progress != nil {
		opts.Progress(len(names), len(names))
	}
	if len(m.Tables) == 0 {
		return nil, fmt.Errorf("%w that can be read: %s", ErrNoTables, strings.Join(m.Skipped, "; "))
	}
	views, err := queryStrings(conn, `SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("dbmodel: %w", err)
	}
	for _, name := range views {
		if r := FormatChar(name); r >= 0 {
			m.skip("view %s: its name holds the format character %U, which would display as other text; left out", name, r)
			continue
		}
		v, err := readView(conn, name, opts)
		if Fatal(err) {
			return nil, fmt.Errorf("dbmodel: view %s: %w", CommentText(name), err)
		} else if err != nil {
			m.skip("view %s: %v", name, err)
			continue
		}
		m.Views = append(m.Views, v)
	}
	recoverKeys(m)
	if err := checkReferences(conn, m); err != nil {
		return nil, fmt.Errorf("dbmodel: %w", err)
	}
	if !opts.NoInferFK {
		if err := inferForeignKeys(conn, m); err != nil {
			return nil, fmt.Errorf("dbmodel: %w", err)
		}
	}
	markReferenced(m)
	for _, t := range m.Tables {
		if err := readOpaque(conn, t); err != nil {
			if Fatal(err) {
				return nil, fmt.Errorf("dbmodel: table %s: %w", CommentText(t.Name), err)
			}
			m.skip("table %s: %v", t.Name, err)
		}
		chooseNaturalKeys(t)
		if err := chooseComboKey(conn, t); err != nil {
			if Fatal(err) {
				return nil, fmt.Errorf("dbmodel: table %s: %w", CommentText(t.Name), err)
			}
			m.skip("table %s: %v", t.Name, err)
		}
	}
	return m, nil
}

// readView reads a view's columns and statistics.
func readView(conn *sqlite3.Conn, name string, opts Options) (*Table, error) {
	t := &Table{Name: name}
	sql, err := queryStrings(conn, `SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = ?`, name)
	if err != nil {
		return nil, err
	}
	if len(sql) == 1 && FormatChar(sql[0]) >= 0 {
		return nil, fmt.Errorf("its SQL holds the format character %U, which would display as other text; left out", FormatChar(sql[0]))
	}
	if len(sql) == 1 && addsTextLiteral(sql[0]) {
		return nil, errors.New("adds text with + (SQL Server's string concatenation); SQLite adds numbers, so its column would be 0")
	}
	rows, err := queryRows(conn, `SELECT name, type FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no columns")
	}
	for _, r := range rows {
		c := &Column{Name: asString(r[0]), DeclType: asString(r[1])}
		if f := FormatChar(c.Name); f >= 0 {
			return nil, fmt.Errorf("column %s: its name holds the format character %U, which would display as other text; left out", c.Name, f)
		}
		c.Kind = affinity(c.DeclType)
		if c.DeclType == "" {
			c.Kind = Blob // an expression: the data decides
		}
		t.Columns = append(t.Columns, c)
	}
	// A view's statistics come from a sample: a view may compute its rows
	// (a recursive CTE can make endless ones), a table only stores them.
	if err := readStats(conn, t, fmt.Sprintf("(SELECT * FROM %s LIMIT %d)", quote(name), viewSample), opts); err != nil {
		return nil, err
	}
	return t, nil
}

// viewSample is how many rows of a view its statistics are read from.
const viewSample = 10_000

// shadowOf returns the virtual table whose data table name is, or "".
func shadowOf(name string, virtual []string) string {
	for _, v := range virtual {
		if strings.HasPrefix(name, v+"_") {
			return v
		}
	}
	return ""
}

func readTable(conn *sqlite3.Conn, m *Model, name string, opts Options) (*Table, error) {
	t := &Table{Name: name}
	q := quote(name)
	rows, err := queryRows(conn, `SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, name)
	if err != nil {
		return nil, err
	}
	var pk []*Column
	for _, r := range rows {
		c := &Column{Name: asString(r[0]), DeclType: asString(r[1]), NotNull: asInt(r[2]) != 0, PK: int(asInt(r[4]))}
		if f := FormatChar(c.Name); f >= 0 {
			return nil, fmt.Errorf("column %s: its name holds the format character %U, which would display as other text; left out", c.Name, f)
		}
		if h := asInt(r[5]); h == 2 || h == 3 {
			c.Computed = h
		} else if h != 0 {
			continue // a virtual table's hidden column
		}
		c.Kind = affinity(c.DeclType)
		if !ValidType(c.DeclType) {
			m.skip("%s.%s: declared type %q is not a type name SQLite reads back; written as %s", name, c.Name, c.DeclType, affinityType(c.Kind))
			c.DeclType = affinityType(c.Kind)
		}
		if r[3] != nil {
			if d, ok := CleanDefault(asString(r[3])); ok {
				c.Default = &d
			} else {
				m.skip("%s.%s: DEFAULT %q is not one expression; left out", name, c.Name, asString(r[3]))
			}
		}
		t.Columns = append(t.Columns, c)
		if c.PK > 0 {
			pk = append(pk, c)
		}
	}
	slices.SortFunc(pk, func(a, b *Column) int { return a.PK - b.PK })
	for _, c := range pk {
		t.PrimaryKey = append(t.PrimaryKey, c.Name)
	}
	createSQL, err := queryStrings(conn, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, name)
	if err != nil {
		return nil, err
	}
	if len(createSQL) > 0 {
		if r := FormatChar(createSQL[0]); r >= 0 {
			return nil, fmt.Errorf("its CREATE TABLE holds the format character %U (in an expression or a constraint's name), which would display as other text; left out", r)
		}
	}
	withoutRowID := len(createSQL) > 0 && regexp.MustCompile(`(?i)\)\s*WITHOUT\s+ROWID`).MatchString(createSQL[0])
	if len(pk) == 0 {
		if t.Column(RowIDColumn) != nil {
			return nil, fmt.Errorf("has no primary key and already a column named %s", RowIDColumn)
		}
		t.RowID = true
		t.PrimaryKey = []string{RowIDColumn}
		t.Columns = append([]*Column{{Name: RowIDColumn, DeclType: "INTEGER", Kind: Integer, NotNull: true, PK: 1, Generated: true}}, t.Columns...)
	} else if len(pk) == 1 && strings.EqualFold(pk[0].DeclType, "INTEGER") && !withoutRowID {
		pk[0].Generated = true
		pk[0].NotNull = true
	}
	if len(createSQL) > 0 {
		if err := computedExprs(createSQL[0], t); err != nil {
			m.skip("%s: %v", name, err)
		}
		for _, chk := range checkExprs(createSQL[0]) {
			if c, ok := stripComments(chk); ok && c != "" {
				t.Checks = append(t.Checks, c)
			} else {
				m.skip("%s: CHECK (%s) is not one expression; left out", name, chk)
			}
		}
		t.WithoutRowID = withoutRowID
		t.Strict = regexp.MustCompile(`(?i)\)\s*(WITHOUT\s+ROWID\s*,\s*)?STRICT\s*(,\s*WITHOUT\s+ROWID\s*)?$`).MatchString(strings.TrimSpace(createSQL[0]))
		t.AutoIncrement = regexp.MustCompile(`(?i)\bAUTOINCREMENT\b`).MatchString(createSQL[0])
	}
	for _, chk := range t.Checks {
		for col, vals := range inLists(chk) {
			if c := t.Column(col); c != nil {
				if isBoolList(vals) {
					c.Bool = true
				} else if c.Kind == Text || c.Kind == Blob && c.DeclType == "" {
					c.Enum, c.Kind = vals, Text
				}
			}
		}
	}
	// Declared foreign keys.
	fks, err := queryRows(conn, `SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, name)
	if err != nil {
		return nil, err
	}
	if opts.IgnoreDeclaredReferences {
		fks = nil
	}
	for _, r := range fks {
		id, ref, from := asInt(r[0]), asString(r[2]), asString(r[3])
		if asInt(r[1]) == 0 {
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{RefTable: ref})
			_ = id
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, from)
		fk.RefColumns = append(fk.RefColumns, asString(r[4])) // "" = the parent's primary key
	}
	// UNIQUE constraints and unique indexes.
	idx, err := queryRows(conn, `SELECT name FROM pragma_index_list(?) WHERE "unique" = 1 AND origin <> 'pk' ORDER BY seq`, name)
	if err != nil {
		return nil, err
	}
	for _, r := range idx {
		cols, err := queryStrings(conn, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, asString(r[0]))
		if err != nil {
			return nil, err
		}
		if len(cols) == 1 {
			if c := t.Column(cols[0]); c != nil {
				c.Unique = true
			}
		} else if len(cols) > 1 {
			t.Uniques = append(t.Uniques, cols)
		}
	}
	if err := readStats(conn, t, q, opts); err != nil {
		return nil, err
	}
	return t, nil
}

// readStats counts rows, NULLs and distinct values, settles kinds from the
// data and finds enumerations and boolean columns.
func readStats(conn *sqlite3.Conn, t *Table, q string, opts Options) error {
	var sel []string
	var real []*Column
	for _, c := range t.Columns {
		if t.RowID && c.Name == RowIDColumn {
			continue
		}
		real = append(real, c)
		qc := quote(c.Name)
		sel = append(sel, fmt.Sprintf(`COUNT(*) - COUNT(%[1]s), COUNT(DISTINCT %[1]s),
			SUM(typeof(%[1]s) = 'integer'), SUM(typeof(%[1]s) = 'real'), SUM(typeof(%[1]s) = 'text'), SUM(typeof(%[1]s) = 'blob'),
			SUM(typeof(%[1]s) = 'integer' AND %[1]s NOT IN (0, 1)), MAX(length(%[1]s))`, qc))
	}
	rows, err := queryRows(conn, `SELECT COUNT(*), `+strings.Join(sel, ", ")+` FROM `+q)
	if err != nil {
		return err
	}
	r := rows[0]
	t.Rows = asInt(r[0])
	for i, c := range real {
		v := r[1+i*8 : 1+(i+1)*8]
		c.Nulls, c.Distinct = asInt(v[0]), asInt(v[1])
		nInt, nReal, nText, nBlob, nNonBool, maxLen := asInt(v[2]), asInt(v[3]), asInt(v[4]), asInt(v[5]), asInt(v[6]), asInt(v[7])
		c.MaxLen = maxLen
		nonNull := t.Rows - c.Nulls
		switch {
		case nonNull == 0:
		case nBlob > 0 && nBlob == nonNull:
			c.Kind = Blob
		case nText > 0 || nBlob > 0:
			c.Kind = Text // declared numeric but holding text: tools must take text
		case nReal > 0:
			c.Kind = Real
		case nInt > 0 && c.Kind != Real:
			c.Kind = Integer
		}
		if c.Kind == Integer && nNonBool == 0 && nonNull > 0 && !c.Bool && boolName(c.Name) {
			c.Bool = true
		}
		if c.Kind == Text && nonNull > 0 {
			if err := readTimeLayout(conn, c, q); err != nil {
				return err
			}
		}
		if c.Kind == Text && c.Enum == nil && !t.IsKey(c.Name) && !c.Unique && t.ForeignKeyOf(c.Name) == nil &&
			c.Distinct >= 1 && c.Distinct <= int64(opts.MaxEnum) && nonNull >= 3*c.Distinct && maxLen <= 40 && !freeTextName(c.Name) {
			vals, err := queryStrings(conn, fmt.Sprintf(`SELECT DISTINCT CAST(%[1]s AS TEXT) FROM %[2]s WHERE %[1]s IS NOT NULL ORDER BY 1`, quote(c.Name), q))
			if err != nil {
				return err
			}
			// Only a closed set: codes ('active', 'on_hold') or a column
			// named for a category. Names, surnames, cities and free
			// text with few distinct values are still open: an enum
			// would refuse every new one.
			if closedSetName(c.Name) && !addressState(t, c.Name) || codeLike(vals) && !nameish(c.Name) {
				c.Enum, c.EnumInferred = vals, true
			}
		}
	}
	return nil
}

// affinity applies SQLite's type-affinity rules to a declared type.
func affinity(decl string) Kind {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return Integer
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return Text
	case strings.Contains(d, "BLOB"):
		return Blob
	case d == "":
		return Blob // no affinity: the data decides (readStats)
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return Real
	case strings.Contains(d, "BOOL"):
		return Integer
	}
	return Real // NUMERIC, DECIMAL, DATE...: readStats narrows it from the data
}

func boolName(n string) bool {
	n = strings.ToLower(n)
	return strings.HasPrefix(n, "is_") || strings.HasPrefix(n, "has_") || strings.HasPrefix(n, "can_") ||
		n == "active" || n == "enabled" || n == "deleted" || n == "verified" || n == "archived" || n == "final_sale"
}

// closedSetName marks columns named for a category.
func closedSetName(n string) bool {
	n = strings.ToLower(n)
	for _, s := range []string{"status", "state", "type", "kind", "category", "level", "tier", "class", "role", "method", "mode",
		"priority", "stage", "cabin", "membership", "currency", "unit", "channel", "format", "gender", "source", "rating", "severity"} {
		if n == s || strings.HasSuffix(n, "_"+s) || strings.HasPrefix(n, s+"_") {
			return !nameish(n) || n == s
		}
	}
	return false
}

// addressState: a "state" beside a city, country or postal code is part of
// an address (Alberta, NY), an open set like the city itself, not a
// record's status: Chinook's eight employees all live in AB, and an enum
// of one value refused every other province.
func addressState(t *Table, n string) bool {
	if strings.ToLower(n) != "state" {
		return false
	}
	for _, c := range t.Columns {
		l := strings.ToLower(c.Name)
		if ContainsAny(l, "city", "country", "postal", "zip") {
			return true
		}
	}
	return false
}

var codeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-]{0,23}$`)

// codeLike: every value is a short lower-case code, not a word a person
// writes with capitals (a name, a city).
func codeLike(vals []string) bool {
	for _, v := range vals {
		if !codeRE.MatchString(v) {
			return false
		}
	}
	return len(vals) > 0
}

// nameish marks columns holding names of people, places or things.
func nameish(n string) bool {
	n = strings.ToLower(n)
	return ContainsAny(n, "name", "email", "city", "country", "title", "street", "address", "phone", "author", "label", "company")
}

// freeTextName marks columns whose values are prose even when few distinct.
func freeTextName(n string) bool {
	n = strings.ToLower(n)
	return ContainsAny(n, "description", "note", "comment", "body", "text", "message", "subject", "address", "line1", "line2")
}

func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// Quote quotes an SQL identifier.
func Quote(id string) string { return quote(id) }
