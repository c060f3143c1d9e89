package design

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Bounds of what the design prompt shows of the data.
const (
	sampleRows    = 3  // rows shown per table
	fewValues     = 12 // a column with at most this many distinct values lists them
	maxShownValue = 60 // characters of a value shown
	maxTables     = 40 // tables described
)

// tableFacts is what the prompt shows of one table: JSON, so that names
// and values from the database stay data.
type tableFacts struct {
	Table      string              `json:"table"`
	Rows       int64               `json:"rows"`
	Key        []string            `json:"primary_key"`
	Columns    []string            `json:"columns"`
	References []string            `json:"references,omitempty"`
	Values     map[string][]string `json:"few_values,omitempty"`
	Sample     []map[string]any    `json:"sample_rows,omitempty"`
}

// describe writes the schema, row counts, sample rows, the values of
// low-cardinality columns and the references (declared and recovered).
func describe(m *dbmodel.Model, conn *sqlite3.Conn) (string, error) {
	var facts []tableFacts
	for i, t := range m.Tables {
		if i == maxTables {
			break
		}
		f := tableFacts{Table: t.Name, Rows: t.Rows, Key: t.PrimaryKey, Values: map[string][]string{}}
		for _, c := range t.Columns {
			d := c.Name + " " + string(c.Kind)
			if c.NotNull {
				d += " not null"
			}
			if c.Nulls > 0 && t.Rows > 0 {
				d += fmt.Sprintf(" (%d of %d rows null)", c.Nulls, t.Rows)
			}
			if c.TimeLayout != "" {
				d += " time"
			}
			if len(c.Enum) > 0 && !c.EnumInferred {
				d += " CHECK in (" + strings.Join(c.Enum, ", ") + ")"
			}
			if !c.Writable() {
				d += " computed"
			}
			f.Columns = append(f.Columns, d)
			if c.Distinct >= 1 && c.Distinct <= fewValues && t.Rows > 2*c.Distinct && c.Kind != dbmodel.Blob {
				vals, err := distinct(conn, t, c)
				if err != nil {
					return "", err
				}
				f.Values[c.Name] = vals
			}
		}
		for _, fk := range t.ForeignKeys {
			r := strings.Join(fk.Columns, ",") + " -> " + fk.RefTable + "." + strings.Join(fk.RefColumns, ",")
			if fk.Inferred {
				r += " (recovered from the data)"
			}
			f.References = append(f.References, r)
		}
		rows, err := sample(conn, t)
		if err != nil {
			return "", err
		}
		f.Sample = rows
		facts = append(facts, f)
	}
	b, err := json.MarshalIndent(facts, "", " ")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func distinct(conn *sqlite3.Conn, t *dbmodel.Table, c *dbmodel.Column) ([]string, error) {
	stmt, _, err := conn.Prepare("SELECT " + dbmodel.Quote(c.Name) + ", count(*) FROM " + dbmodel.Quote(t.Name) +
		" WHERE " + dbmodel.Quote(c.Name) + " IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?")
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	if err := stmt.BindInt(1, fewValues); err != nil {
		return nil, err
	}
	var out []string
	for stmt.Step() {
		out = append(out, fmt.Sprintf("%s (%d)", shorten(stmt.ColumnText(0)), stmt.ColumnInt64(1)))
	}
	return out, stmt.Err()
}

func sample(conn *sqlite3.Conn, t *dbmodel.Table) ([]map[string]any, error) {
	stmt, _, err := conn.Prepare("SELECT * FROM " + dbmodel.Quote(t.Name) + " LIMIT ?")
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	if err := stmt.BindInt(1, sampleRows); err != nil {
		return nil, err
	}
	var out []map[string]any
	for stmt.Step() {
		row := map[string]any{}
		for i := range stmt.ColumnCount() {
			switch v := dbmodel.ColumnValue(stmt, i).(type) {
			case string:
				row[stmt.ColumnName(i)] = shorten(v)
			case []byte:
				row[stmt.ColumnName(i)] = fmt.Sprintf("(%d bytes)", len(v))
			default:
				row[stmt.ColumnName(i)] = v
			}
		}
		out = append(out, row)
	}
	return out, stmt.Err()
}

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxShownValue {
		return s
	}
	return string([]rune(s)[:maxShownValue]) + "…"
}
