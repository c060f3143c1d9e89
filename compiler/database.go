package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/sqlrules"
)

// buildDB runs schema.sql, seed.sql and the imports into a fresh database,
// checks the export views and the tasks' SQL against it, and returns the
// database image.
func buildDB(src *source) ([]byte, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0) // environment SQL touches no other database
	if err := execScript(conn, filepath.Join(src.dir, "schema.sql"), src.schema); err != nil {
		return nil, err
	}
	if err := checkPrimaryKeys(conn, filepath.Join(src.dir, "schema.sql")); err != nil {
		return nil, err
	}
	if src.seed != "" {
		if err := execScript(conn, filepath.Join(src.dir, "seed.sql"), src.seed); err != nil {
			return nil, err
		}
	}
	for i, imp := range src.imports {
		if err := importFile(conn, src.dir, imp); err != nil {
			return nil, fmt.Errorf("%s: imports[%d]: %w", filepath.Join(src.dir, "env.yaml"), i, err)
		}
	}
	conn.Limit(sqlite3.LIMIT_ATTACHED, 10) // VACUUM and serdes attach internally
	if err := conn.Exec("VACUUM"); err != nil {
		return nil, err
	}
	img, err := serdes.Serialize(conn, "main")
	if err != nil {
		return nil, err
	}
	if err := checkQueries(src, img); err != nil {
		return nil, err
	}
	return img, nil
}

// execScript runs statements one by one so an error names its line.
//
// leads, if given, also checks each statement's first keyword (the bundle-SQL
// rules of task setups, internal/sqlrules).
func execScript(conn *sqlite3.Conn, path, script string, leads ...func(string) error) error {
	rest := script
	line, counted := 1, 0 // line number of script[counted], advanced incrementally
	for {
		at := len(script) - len(rest) + leadingSpace(rest)
		line += strings.Count(script[counted:at], "\n")
		counted = at
		// Only the statement's first word matters: upper-casing the whole
		// rest of the script here made loading a large seed.sql quadratic.
		lead := strings.TrimSpace(rest)
		lead = strings.ToUpper(lead[:min(len(lead), 8)])
		if strings.HasPrefix(lead, "VACUUM") || strings.HasPrefix(lead, "ATTACH") {
			return errAt(fmt.Sprintf("%s:%d", path, line), "VACUUM and ATTACH are not allowed in environment SQL")
		}
		for _, check := range leads {
			if err := check(rest); err != nil {
				return errAt(fmt.Sprintf("%s:%d", path, line), "%v", err)
			}
		}
		// Prepare only this statement's text: handing SQLite the whole
		// rest of the script copied it into SQLite's heap once per
		// statement (quadratic; a 13 MB seed ran out of memory). A
		// trigger's body holds ';', so an incomplete piece grows to the
		// next one.
		end := statementEnd(rest, 0)
		var stmt *sqlite3.Stmt
		var tail string
		var err error
		for {
			stmt, tail, err = conn.Prepare(rest[:end])
			if err != nil && end < len(rest) && strings.Contains(err.Error(), "incomplete input") {
				end = statementEnd(rest, end)
				continue
			}
			break
		}
		if err != nil {
			// A syntax error names the token at fault: report its line.
			var se *sqlite3.Error
			if errors.As(err, &se) && se.SQL() != "" && strings.HasSuffix(rest[:end], se.SQL()) {
				at := len(script) - len(rest) + end - len(se.SQL())
				line = 1 + strings.Count(script[:at], "\n")
			}
			return errAt(fmt.Sprintf("%s:%d", path, line), "%v", err)
		}
		tail += rest[end:]
		if stmt == nil {
			return nil
		}
		err = stmt.Exec()
		stmt.Close()
		if err != nil {
			// SQLite does not say which row of a statement failed: name
			// the statement's lines.
			end := len(script) - len(tail)
			last := 1 + strings.Count(strings.TrimRight(script[:end], " \t\r\n;"), "\n")
			if last > line {
				return errAt(fmt.Sprintf("%s:%d", path, line), "in the statement on lines %d-%d: %v", line, last, err)
			}
			return errAt(fmt.Sprintf("%s:%d", path, line), "%v", err)
		}
		rest = tail
	}
}

// statementEnd returns the index just after the first ';' at or after
// from that is outside string literals, quoted names and comments, or
// len(s).
func statementEnd(s string, from int) int {
	for i := from; i < len(s); i++ {
		switch c := s[i]; c {
		case ';':
			return i + 1
		case '\'', '"', '`', '[':
			if c == '[' {
				c = ']'
			}
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return len(s)
			}
			i += j + 1 // a doubled quote reads as two literals: same end
		case '-':
			if strings.HasPrefix(s[i:], "--") {
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 {
					return len(s)
				}
				i += j
			}
		case '/':
			if strings.HasPrefix(s[i:], "/*") {
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return len(s)
				}
				i += j + 3
			}
		}
	}
	return len(s)
}

func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

func checkPrimaryKeys(conn *sqlite3.Conn, path string) error {
	stmt, _, err := conn.Prepare(`SELECT s.name FROM sqlite_schema AS s WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite_%'
		AND NOT EXISTS (SELECT 1 FROM pragma_table_info(s.name) AS c WHERE c.pk > 0) ORDER BY s.name`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	if stmt.Step() {
		return errAt(path, "table %s has no PRIMARY KEY (diffs key rows by it)", stmt.ColumnText(0))
	}
	return stmt.Err()
}

// importFile loads a JSON array, a JSON object of objects or JSONL into a table.
func importFile(conn *sqlite3.Conn, dir string, imp importSpec) error {
	if imp.File == "" || imp.Table == "" {
		return fmt.Errorf("file and table are required")
	}
	if !filepath.IsLocal(filepath.FromSlash(imp.File)) {
		return fmt.Errorf("file %q must be a path inside the environment directory", imp.File)
	}
	path := filepath.Join(dir, filepath.FromSlash(imp.File))
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	type rec struct {
		key  string
		data json.RawMessage
	}
	var records []rec
	trimmed := bytes.TrimSpace(raw)
	switch {
	case strings.HasSuffix(imp.File, ".jsonl"):
		for i, line := range bytes.Split(trimmed, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				if !json.Valid(line) {
					return errAt(fmt.Sprintf("%s:%d", path, i+1), "invalid JSON")
				}
				records = append(records, rec{data: line})
			}
		}
	case len(trimmed) > 0 && trimmed[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			return errAt(path, "%v", err)
		}
		for _, a := range arr {
			records = append(records, rec{data: a})
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		// An object of objects, in file order.
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.Token()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return errAt(path, "%v", err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return errAt(path, "%v", err)
			}
			records = append(records, rec{key: k.(string), data: v})
		}
		if imp.KeyColumn == "" {
			return errAt(path, "an object of records needs key_column in env.yaml")
		}
	default:
		return errAt(path, "expected a JSON array, a JSON object or a .jsonl file")
	}

	cols, err := tableColumns(conn, imp.Table)
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return fmt.Errorf("table %s does not exist", imp.Table)
	}
	for _, c := range []string{imp.KeyColumn, imp.JSONColumn} {
		if c != "" && !contains(cols, c) {
			return fmt.Errorf("table %s has no column %s", imp.Table, c)
		}
	}
	// One INSERT per set of columns present: a column a record leaves out
	// gets its DEFAULT (an explicit null stays NULL).
	stmts := map[string]*sqlite3.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for n, r := range records {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(r.data, &obj); err != nil {
			return errAt(path, "record %d: not a JSON object", n+1)
		}
		if imp.JSONColumn == "" {
			for f := range obj {
				if !contains(cols, f) {
					return errAt(path, "record %d: field %q has no column in table %s (add the column or set json_column)", n+1, f, imp.Table)
				}
			}
		}
		var present []string
		for _, c := range cols {
			_, inRecord := obj[c]
			if (c == imp.KeyColumn && r.key != "") || c == imp.JSONColumn || inRecord {
				present = append(present, c)
			}
		}
		key := strings.Join(present, "\x00")
		stmt := stmts[key]
		if stmt == nil {
			sql := fmt.Sprintf(`INSERT INTO %s DEFAULT VALUES`, quoteIdent(imp.Table))
			if len(present) > 0 {
				quoted := make([]string, len(present))
				for i, c := range present {
					quoted[i] = quoteIdent(c)
				}
				sql = fmt.Sprintf(`INSERT INTO %s (%s) VALUES (%s)`, quoteIdent(imp.Table),
					strings.Join(quoted, ","), strings.TrimSuffix(strings.Repeat("?,", len(present)), ","))
			}
			var err error
			if stmt, _, err = conn.Prepare(sql); err != nil {
				return err
			}
			stmts[key] = stmt
		}
		for i, c := range present {
			var err error
			switch {
			case c == imp.KeyColumn && r.key != "":
				err = stmt.BindText(i+1, r.key)
			case c == imp.JSONColumn:
				err = stmt.BindText(i+1, string(r.data))
			default:
				err = bindJSON(stmt, i+1, obj[c])
			}
			if err != nil {
				return err
			}
		}
		if err := stmt.Exec(); err != nil {
			return errAt(path, "record %d: %v", n+1, err)
		}
		stmt.ClearBindings()
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func bindJSON(stmt *sqlite3.Stmt, i int, v json.RawMessage) error {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return err
	}
	switch y := x.(type) {
	case nil:
		return stmt.BindNull(i)
	case bool:
		return stmt.BindBool(i, y)
	case json.Number:
		if n, err := y.Int64(); err == nil {
			return stmt.BindInt64(i, n)
		}
		f, _ := y.Float64()
		return stmt.BindFloat(i, f)
	case string:
		return stmt.BindText(i, y)
	}
	return stmt.BindText(i, string(bytes.TrimSpace(v)))
}

func tableColumns(conn *sqlite3.Conn, table string) ([]string, error) {
	stmt, _, err := conn.Prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	stmt.BindText(1, table)
	var cols []string
	for stmt.Step() {
		cols = append(cols, stmt.ColumnText(0))
	}
	return cols, stmt.Err()
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// checkQueries prepares every export view, task setup and check against the
// built database (attached as both main and init) so that SQL mistakes are
// found at build time with the task's name.
func checkQueries(src *source, img []byte) error {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", img); err != nil {
		return err
	}
	if err := conn.Exec(`ATTACH ':memory:' AS init`); err != nil {
		return err
	}
	if err := serdes.Deserialize(conn, "init", img); err != nil {
		return err
	}
	conn.Limit(sqlite3.LIMIT_ATTACHED, 1) // init, and nothing a task's SQL would attach
	// Checks may read the episode's change set (envpkg.WrittenFunc); here
	// main is init, so nothing is written.
	if err := conn.CreateFunction(envpkg.WrittenFunc, 1, 0, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
		ctx.ResultText("[]")
	}); err != nil {
		return err
	}
	if err := checkExports(conn, src); err != nil {
		return err
	}
	for i, t := range src.tasks {
		if err := checkTaskSQL(conn, t, src.taskPos[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkExports prepares the export views under the bundle-SQL rules.
func checkExports(conn *sqlite3.Conn, src *source) error {
	envPath := filepath.Join(src.dir, "env.yaml")
	conn.SetAuthorizer(sqlrules.Authorizer)
	defer conn.SetAuthorizer(nil)
	for _, c := range src.manifest.Export {
		for _, schema := range []string{"main", "init"} {
			stmt, _, err := conn.Prepare(strings.ReplaceAll(c.Query, "{schema}", schema))
			if err != nil {
				return errAt(envPath, "export %s: %v", c.Name, err)
			}
			n := stmt.ColumnCount()
			stmt.Close()
			if n != 2 {
				return errAt(envPath, "export %s: query must return 2 columns (key, JSON record), it returns %d", c.Name, n)
			}
		}
	}
	return nil
}

func checkTaskSQL(conn *sqlite3.Conn, t envpkg.Task, pos taskPos) error {
	if err := conn.Exec("SAVEPOINT task_check"); err != nil {
		return err
	}
	defer conn.Exec("ROLLBACK TO task_check; RELEASE task_check")
	// The runtime's rules for bundle SQL, so that what builds also runs.
	conn.SetAuthorizer(sqlrules.Authorizer)
	defer conn.SetAuthorizer(nil)
	if t.Setup != "" {
		if err := execScript(conn, "setup", t.Setup, sqlrules.CheckLead); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return errAt(pos.at("setup"), "task %s: %s: %s", t.ID, e.Pos, e.Msg)
			}
			return errAt(pos.at("setup"), "task %s: setup: %v", t.ID, err)
		}
	}
	for i, c := range t.Checks {
		fail := func(format string, args ...any) error {
			return errAt(pos.check(i), "task %s: check %d (%s): %s", t.ID, i+1, c.Name, fmt.Sprintf(format, args...))
		}
		stmt, tail, err := conn.Prepare(c.SQL)
		if err != nil {
			return fail("%v", err)
		}
		readOnly := stmt.ReadOnly()
		stmt.Close()
		if strings.TrimSpace(tail) != "" {
			return fail("one statement per check")
		}
		if !readOnly {
			return fail("a check must be read-only (a SELECT that yields true or false); it would change the database")
		}
	}
	return nil
}
