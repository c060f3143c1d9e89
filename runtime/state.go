package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// Diff is the state change since the initial state: per collection, per key,
// the new record, or nil (JSON null) for a deleted one.
type Diff map[string]map[string]json.RawMessage

// view is one collection of the export: a query yielding (key, JSON record).
type view struct {
	name   string
	query  string // with {schema}
	tables []string
	// diff, for a default (per-table) view, compares raw rows so that only
	// changed rows are turned into JSON; custom views use diffSQL.
	diff string
	// tracked is the view's diff restricted to the rows the episode wrote
	// (trackview.go), or nil: scanned whole.
	tracked *trackedView
}

// loadViews returns the bundle's export views, or one default view per table:
// key = primary key as text (a composite key as a JSON array of its
// columns, which no value can forge), record = the row as a JSON object.
func (e *Env) loadViews(ctx context.Context) ([]view, error) {
	conn, err := e.openConn(e.inits[""].name, true)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	info, err := readTables(conn)
	if err != nil {
		return nil, err
	}
	e.rowTables = map[string]string{}
	for lower, t := range info {
		e.rowTables[lower] = t.name
	}
	if e.keyedTables, err = readKeyedTables(conn); err != nil {
		return nil, err
	}
	for name := range e.keyedTables {
		e.rowTables[strings.ToLower(name)] = name
	}
	var views []view
	for _, c := range e.Bundle.Manifest.Export {
		views = append(views, view{name: c.Name, query: c.Query, tables: c.Tables})
		views[len(views)-1].tracked = trackCustom(&views[len(views)-1], info)
	}
	if len(views) > 0 {
		return views, nil
	}
	stmt, _, err := conn.Prepare(`SELECT s.name, c.name, c.pk FROM sqlite_schema AS s, pragma_table_info(s.name) AS c
		WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite_%' ORDER BY s.name, c.cid`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	type table struct {
		cols []string
		pk   map[int]string
	}
	tables := map[string]*table{}
	var order []string
	for stmt.Step() {
		name, col, pk := stmt.ColumnText(0), stmt.ColumnText(1), stmt.ColumnInt(2)
		t := tables[name]
		if t == nil {
			t = &table{pk: map[int]string{}}
			tables[name] = t
			order = append(order, name)
		}
		t.cols = append(t.cols, col)
		if pk > 0 {
			t.pk[pk] = col
		}
	}
	if err := stmt.Err(); err != nil {
		return nil, err
	}
	for _, name := range order {
		t := tables[name]
		keys := make([]string, 0, len(t.pk))
		for i := 1; i <= len(t.pk); i++ {
			keys = append(keys, quoteIdent(t.pk[i]))
		}
		fields := make([]string, 0, len(t.cols))
		for _, c := range t.cols {
			q := quoteIdent(c)
			fields = append(fields, fmt.Sprintf("'%s', CASE WHEN typeof(%s) = 'blob' THEN hex(%s) ELSE %s END", strings.ReplaceAll(c, "'", "''"), q, q, q))
		}
		key, rec, tbl := viewKey(keys), "json_object("+strings.Join(fields, ", ")+")", quoteIdent(name)
		cols, binary := make([]string, len(t.cols)), make([]string, len(t.cols))
		for i, c := range t.cols {
			cols[i] = quoteIdent(c)
			binary[i] = cols[i] + " COLLATE BINARY"
		}
		views = append(views, view{
			name:    name,
			query:   fmt.Sprintf("SELECT %s, %s FROM {schema}.%s", key, rec, tbl),
			tables:  []string{name},
			tracked: trackDefault(info[strings.ToLower(name)], key, rec, strings.Join(cols, ", "), strings.Join(binary, ", ")),
			// Rows are compared column by column (EXCEPT compares values), so
			// the third column, the initial record, is never needed. BINARY
			// collation: a NOCASE column changed from "a" to "A" has changed.
			diff: fmt.Sprintf(`WITH c(%[4]s) AS (SELECT %[5]s FROM main.%[3]s EXCEPT SELECT %[4]s FROM init.%[3]s)
SELECT %[1]s, %[2]s, NULL FROM c
UNION ALL
SELECT k, NULL, NULL FROM (SELECT (%[1]s) COLLATE BINARY AS k FROM init.%[3]s EXCEPT SELECT %[1]s FROM main.%[3]s)`,
				key, rec, tbl, strings.Join(cols, ", "), strings.Join(binary, ", ")),
		})
	}
	return views, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// diffSQL finds candidate changes by text (EXCEPT) and returns, beside each
// changed record, its initial text, so that Diff can drop records whose JSON
// value is unchanged though their text differs (key order, spacing).
// Deleted keys come last with a NULL record.
func (v *view) diffSQL() string {
	if v.diff != "" {
		return v.diff
	}
	return fmt.Sprintf(`WITH m(k, r) AS (%s), i(k, r) AS (%s),
c(k, r) AS (SELECT k COLLATE BINARY, r COLLATE BINARY FROM m EXCEPT SELECT k, r FROM i)
SELECT c.k, c.r, i.r FROM c LEFT JOIN i ON i.k = c.k
UNION ALL
SELECT k, NULL, NULL FROM (SELECT k COLLATE BINARY FROM i EXCEPT SELECT k FROM m)`,
		strings.ReplaceAll(v.query, "{schema}", "main"), strings.ReplaceAll(v.query, "{schema}", "init"))
}

// sameJSON reports whether two JSON texts hold the same value. Numbers are
// compared as written (json.Number): converting them to float64 would make
// large integers such as nanosecond timestamps equal to their neighbours.
func sameJSON(a, b []byte) bool {
	if !utf8.Valid(a) || !utf8.Valid(b) { // decoding would merge distinct bytes into U+FFFD
		return bytes.Equal(a, b)
	}
	// The canonical forms are equal exactly when the decoded values are
	// (Marshal is injective on them); encoding/json below when the fast
	// path declines.
	ca, oka := appendCanon(make([]byte, 0, len(a)+len(b)), a)
	if oka {
		n := len(ca)
		cb, okb := appendCanon(ca, b)
		if okb {
			return bytes.Equal(cb[:n], cb[n:])
		}
	}
	x, errx := decodeJSON(a)
	y, erry := decodeJSON(b)
	return errx == nil && erry == nil && reflect.DeepEqual(x, y)
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Diff returns the records changed since the initial state. Collections whose
// tables were not written since the reset are skipped without a query.
func (ep *Episode) Diff() (d Diff, err error) {
	if ep.closed {
		return nil, ErrClosed
	}
	defer ep.enter()()
	err = ep.bundleSQL(context.Background(), func() error { d, err = ep.diff(); return err })
	return d, err
}

func (ep *Episode) diff() (Diff, error) {
	d, _, err := ep.diffCanon(false)
	return d, err
}

// diffCanon is diff, and with canons the canonical form of each record
// (canonRecord's), computed once for both the diff's value comparison and
// the state hash (DiffAndHash).
func (ep *Episode) diffCanon(canons bool) (Diff, map[string]map[string][]byte, error) {
	d, size := Diff{}, 0
	var cs map[string]map[string][]byte
	if canons {
		cs = map[string]map[string][]byte{}
	}
	for i := range ep.env.views {
		v := &ep.env.views[i]
		if !ep.viewTouched(v) {
			continue
		}
		err := ep.scanView(v, func(key string, rec json.RawMessage, canon []byte) error {
			if d[v.name] == nil {
				d[v.name] = map[string]json.RawMessage{}
			}
			d[v.name][key] = bytes.Clone(rec)
			if size += len(key) + len(rec) + 8; ep.diffMax > 0 && size > ep.diffMax {
				return fmt.Errorf("%w: over %d bytes", ErrDiffTooLarge, ep.diffMax)
			}
			if canons {
				if cs[v.name] == nil {
					cs[v.name] = map[string][]byte{}
				}
				cs[v.name][key] = canon // nil: computed when hashed
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return d, cs, nil
}

// scanView runs a view's diff query and calls f for each changed record
// (nil: deleted), in the query's order, leaving out records whose JSON
// value is unchanged, with its canonical form (canonRecord's) where it was
// computed on the way, else nil. A key may come more than once (custom
// views); the last call wins, as in Diff's map. rec and canon may be
// SQLite's own bytes or scratch, valid only during the call: f copies what
// it keeps (so that a pass that keeps few records allocates little).
func (ep *Episode) scanView(v *view, f func(key string, rec json.RawMessage, canon []byte) error) error {
	emit := func(key string, rec, init []byte, hasRec, hasInit bool) error {
		if !hasRec {
			return f(key, nil, []byte("n"))
		}
		canon, same, err := judgeRecord(rec, init, hasInit, &ep.env.initCanons)
		if err != nil {
			return fmt.Errorf("export %s: record for key %q is not JSON", v.name, key)
		}
		if same {
			return nil
		}
		return f(key, rec, canon)
	}
	if tv := v.tracked; tv != nil && tv.point[0] != "" && directTracked && !ep.fullScan {
		if rowids, ok := ep.track.rowids(tv.table); ok && len(rowids) <= fewTrackedRows {
			if len(rowids) == 0 {
				return nil // the table was written, no row changed
			}
			handled, err := ep.scanDirect(tv, rowids, emit)
			if err != nil {
				return fmt.Errorf("export %s: %w", v.name, err)
			}
			if handled {
				ep.trackedScans++
				return nil
			}
			return ep.scanQuery(v, v.diffSQL(), nil, emit) // the guard failed: scanned whole
		}
	}
	sql, ids, err := ep.viewQuery(v)
	if err != nil {
		return fmt.Errorf("export %s: %w", v.name, err)
	}
	if sql == "" {
		return nil // the table was written, no row changed
	}
	return ep.scanQuery(v, sql, ids, emit)
}

// scanQuery runs a diff query (ids bound to ?1 unless nil) and emits its
// rows: key, record (NULL: deleted), initial record (NULL: none).
func (ep *Episode) scanQuery(v *view, sql string, ids []byte, emit func(key string, rec, init []byte, hasRec, hasInit bool) error) error {
	gs, err := ep.prepareGuest(sql)
	if err != nil {
		return fmt.Errorf("export %s: %w", v.name, err)
	}
	stmt := gs.stmt
	defer stmt.ClearBindings()
	defer stmt.Reset()
	if ids != nil {
		if err := stmt.BindRawText(1, ids); err != nil {
			return fmt.Errorf("export %s: %w", v.name, err)
		}
	}
	for stmt.Step() {
		key := stmt.ColumnText(0)
		var rec, init []byte
		hasRec, hasInit := stmt.ColumnType(1) != sqlite3.NULL, false
		if hasRec {
			if hasInit = stmt.ColumnType(2) != sqlite3.NULL; hasInit {
				rec = bytes.Clone(stmt.ColumnRawText(1)) // reading column 2 may invalidate column 1's bytes
				init = stmt.ColumnRawText(2)
			} else {
				rec = stmt.ColumnRawText(1)
			}
		}
		if err := emit(key, rec, init, hasRec, hasInit); err != nil {
			return err
		}
	}
	if err := stmt.Err(); err != nil {
		return fmt.Errorf("export %s: %w", v.name, err)
	}
	return nil
}

// judgeRecord checks that a changed record is JSON, compares it with its
// initial text when it has one (sameJSON), and returns its canonical form
// when that came on the way (nil otherwise). The fast canonical form is
// only ever produced for valid JSON, so it stands for json.Valid.
//
// inits, the environment's cache of initial records' forms, answers for
// the initial record where it can (nil: none).
func judgeRecord(rec, init []byte, hasInit bool, inits *initCanons) (canon []byte, same bool, err error) {
	if utf8.Valid(rec) {
		// room for both canonical forms: the initial one is appended after
		if c, ok := appendCanon(append(make([]byte, 0, len(rec)+len(init)+1), 'j'), rec); ok {
			canon = c
		}
	}
	if canon == nil && !json.Valid(rec) {
		return nil, false, errNotJSON
	}
	if canon == nil && !utf8.Valid(rec) {
		canon = append([]byte("r"), rec...)
	}
	if !hasInit {
		return canon, false, nil
	}
	if inits != nil && canon != nil {
		if same, ok := inits.sameAsInit(canon, init); ok {
			return canon[:len(canon):len(canon)], same, nil
		}
	}
	if canon != nil && canon[0] == 'j' && utf8.Valid(init) {
		n := len(canon)
		if both, ok := appendCanon(canon, init); ok {
			return both[:n:n], bytes.Equal(both[1:n], both[n:]), nil
		}
		canon = canon[:n:n]
	}
	return canon, sameJSON(rec, init), nil
}

var errNotJSON = errors.New("not JSON")

// viewQuery is the query that finds a view's changes: the tracked one,
// with the rowids it binds, or the full scan (ids nil); "" when the view's
// table was written and no row of it changed.
func (ep *Episode) viewQuery(v *view) (sql string, ids []byte, err error) {
	tv := v.tracked
	if tv == nil || ep.fullScan {
		return v.diffSQL(), nil, nil
	}
	ids, ok := ep.track.written(tv.table)
	if !ok {
		return v.diffSQL(), nil, nil
	}
	if string(ids) == "[]" {
		return "", nil, nil
	}
	if ok, err := ep.guardOK(tv, ids); err != nil || !ok {
		return v.diffSQL(), nil, err
	}
	ep.trackedScans++
	if ep.track.count(tv.table) <= fewTrackedRows {
		return tv.diff[0], ids, nil
	}
	return tv.diff[1], ids, nil
}

func (ep *Episode) viewTouched(v *view) bool {
	if len(v.tables) == 0 {
		return len(ep.touched) > 0
	}
	for _, t := range v.tables {
		if ep.touched[t] {
			return true
		}
	}
	return false
}

// DiffAndHash returns the diff and the state hash computed from it, for
// callers that need both (computing the diff is the expensive part). Each
// record's canonical form is computed once, for both.
func (ep *Episode) DiffAndHash() (d Diff, h string, err error) {
	if ep.closed {
		return nil, "", ErrClosed
	}
	defer ep.enter()()
	var canons map[string]map[string][]byte
	err = ep.bundleSQL(context.Background(), func() error { d, canons, err = ep.diffCanon(true); return err })
	if err != nil {
		return nil, "", err
	}
	if h, err = ep.hashDiff(d, canons); err == nil {
		ep.stateHash = h
	}
	return d, h, err
}
