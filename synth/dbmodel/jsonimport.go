package dbmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// ImportJSONDir creates a SQLite database at dbPath from a directory of
// JSON collections: each NAME.json (an array of objects, or an object of
// objects keyed by id) or NAME.jsonl (one object per line) becomes table
// NAME. Columns are the union of the records' top-level fields; nested
// objects and arrays are stored as JSON text. For an object of objects the
// map key goes in NAME's singular + "_id" unless a field already holds it.
// A field named id or <singular>_id whose values are unique becomes the
// primary key; otherwise the table has none (and gets a rowid key later).
func ImportJSONDir(dir, dbPath string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("dbmodel: %w", err)
	}
	conn, err := sqlite3.Open(dbPath)
	if err != nil {
		return err
	}
	defer conn.Close()
	n := 0
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if e.IsDir() || (ext != ".json" && ext != ".jsonl") {
			continue
		}
		recs, err := readRecords(filepath.Join(dir, name), strings.TrimSuffix(name, ext))
		if err != nil {
			return fmt.Errorf("dbmodel: %s: %w", name, err)
		}
		if err := importTable(conn, strings.TrimSuffix(name, ext), recs); err != nil {
			return fmt.Errorf("dbmodel: %s: %w", name, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("dbmodel: %s has no .json or .jsonl files", dir)
	}
	return nil
}

func readRecords(path, table string) ([]map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []map[string]any
	dec := func(b []byte) (map[string]any, error) {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		err := d.Decode(&m)
		return m, err
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case strings.HasSuffix(path, ".jsonl"):
		for i, line := range bytes.Split(raw, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			m, err := dec(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			recs = append(recs, m)
		}
	case len(raw) > 0 && raw[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return nil, err
		}
		for _, a := range arr {
			m, err := dec(a)
			if err != nil {
				return nil, err
			}
			recs = append(recs, m)
		}
	case len(raw) > 0 && raw[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		keyCol := Singular(table) + "_id"
		for _, k := range keys {
			m, err := dec(obj[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			found := false
			for _, v := range m {
				if s, ok := v.(string); ok && s == k {
					found = true
					break
				}
			}
			if !found {
				m[keyCol] = k
			}
			recs = append(recs, m)
		}
	default:
		return nil, fmt.Errorf("not a JSON array, object or JSONL file")
	}
	return recs, nil
}

func importTable(conn *sqlite3.Conn, table string, recs []map[string]any) error {
	var cols []string
	kinds := map[string]string{}
	seen := map[string]bool{}
	for _, r := range recs {
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
			kind := "TEXT"
			switch v := r[k].(type) {
			case json.Number:
				if _, err := v.Int64(); err == nil {
					kind = "INTEGER"
				} else {
					kind = "REAL"
				}
			case bool:
				kind = "INTEGER"
			case nil:
				continue
			}
			if old, ok := kinds[k]; ok && old != kind {
				if old == "INTEGER" && kind == "REAL" || old == "REAL" && kind == "INTEGER" {
					kind = "REAL"
				} else {
					kind = "TEXT"
				}
			}
			kinds[k] = kind
		}
	}
	if len(cols) == 0 {
		return fmt.Errorf("no fields")
	}
	pk := ""
	for _, cand := range []string{"id", Singular(table) + "_id"} {
		if seen[cand] && uniqueField(recs, cand) {
			pk = cand
			break
		}
	}
	var defs, qcols []string
	for _, c := range cols {
		k := kinds[c]
		if k == "" {
			k = "TEXT"
		}
		d := quote(c) + " " + k
		if c == pk {
			d += " PRIMARY KEY NOT NULL"
		}
		defs = append(defs, d)
		qcols = append(qcols, quote(c))
	}
	if err := conn.Exec("CREATE TABLE " + quote(table) + " (" + strings.Join(defs, ", ") + ")"); err != nil {
		return err
	}
	stmt, _, err := conn.Prepare("INSERT INTO " + quote(table) + " (" + strings.Join(qcols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")")
	if err != nil {
		return err
	}
	defer stmt.Close()
	if err := conn.Exec("BEGIN"); err != nil {
		return err
	}
	for _, r := range recs {
		for i, c := range cols {
			var v any
			switch x := r[c].(type) {
			case json.Number:
				if n, err := x.Int64(); err == nil {
					v = n
				} else {
					f, _ := x.Float64()
					v = f
				}
			case bool:
				v = map[bool]int64{false: 0, true: 1}[x]
			case string, nil:
				v = x
			default:
				b, _ := json.Marshal(x)
				v = string(b)
			}
			if err := Bind(stmt, i+1, v); err != nil {
				return err
			}
		}
		if err := stmt.Exec(); err != nil {
			conn.Exec("ROLLBACK")
			return err
		}
	}
	return conn.Exec("COMMIT")
}

func uniqueField(recs []map[string]any, f string) bool {
	seen := map[string]bool{}
	for _, r := range recs {
		v, ok := r[f]
		if !ok || v == nil {
			return false
		}
		s := fmt.Sprint(v)
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}
