package tools

import "github.com/wasmenv/wasmenv/sdk"

// SQLArgs holds one statement.
type SQLArgs struct {
	// The statement.
	SQL string `json:"sql"`
}

// Exec runs a write statement.
func Exec(args SQLArgs) (string, error) {
	_, err := sdk.Exec(args.SQL)
	return "ok", err
}

// Query runs a read statement.
func Query(args SQLArgs) (sdk.Rows, error) { return sdk.Query(args.SQL) }

// BothRenderings is one query's rows written three ways: as the host
// renders them, row by row, and re-encoded by the guest's encoder from
// their values. The three must be the same text.
type BothRenderings struct {
	Host  sdk.Rows    `json:"host"`
	Rows  []sdk.Row   `json:"rows"`
	Guest sdk.RawJSON `json:"guest"`
}

// QueryBoth runs a read statement and returns its rows rendered both ways.
func QueryBoth(args SQLArgs) (BothRenderings, error) {
	rows, err := sdk.Query(args.SQL)
	if err != nil {
		return BothRenderings{}, err
	}
	var e sdk.Encoder
	e.BeginArray()
	cols := rows.Columns()
	for _, vals := range rows.Values() {
		e.BeginObject()
		for j, c := range cols {
			e.Key(c)
			e.Any(vals[j])
		}
		e.EndObject()
	}
	e.EndArray()
	if err := e.Err(); err != nil {
		return BothRenderings{}, err
	}
	return BothRenderings{Host: rows, Rows: rows.All(), Guest: e.Bytes()}, nil
}

// ColumnReading is what each accessor of a row answers for one column.
type ColumnReading struct {
	String string  `json:"string"`
	Int    int64   `json:"int"`
	Float  float64 `json:"float"`
	Bool   bool    `json:"bool"`
	IsNull bool    `json:"is_null"`
	Has    bool    `json:"has"`
	Value  any     `json:"value"`
	Type   string  `json:"type"`
}

// ReadEach runs a read statement and reads every column of every row
// through each accessor.
func ReadEach(args SQLArgs) ([][]ColumnReading, error) {
	rows, err := sdk.Query(args.SQL)
	if err != nil {
		return nil, err
	}
	out := [][]ColumnReading{}
	for _, r := range rows.All() {
		var cols []ColumnReading
		for _, c := range r.Columns() {
			v := r.Value(c)
			typ := "nil"
			switch x := v.(type) {
			case int64:
				typ = "int64"
			case float64:
				typ = "float64"
			case string:
				typ = "string"
			case []byte:
				typ, v = "bytes", string(x)
			}
			cols = append(cols, ColumnReading{String: r.String(c), Int: r.Int(c), Float: r.Float(c), Bool: r.Bool(c),
				IsNull: r.IsNull(c), Has: r.Has(c), Value: v, Type: typ})
		}
		if len(r.Map()) != len(r.Columns()) {
			cols = append(cols, ColumnReading{Type: "map lost a column"})
		}
		out = append(out, cols)
	}
	return out, nil
}

// TextReadings is the first column of a query's first row read two ways:
// by sdk.QueryText (values only) and by sdk.QueryRow's Row.String.
type TextReadings struct {
	Text     string `json:"text"`
	Found    bool   `json:"found"`
	RowText  string `json:"row_text"`
	RowFound bool   `json:"row_found"`
}

// QueryText reads the first column of a statement's first row both ways.
func QueryText(args SQLArgs) (TextReadings, error) {
	var r TextReadings
	var err error
	if r.Text, r.Found, err = sdk.QueryText(args.SQL); err != nil {
		return r, err
	}
	rows, err := sdk.Query(args.SQL)
	if err != nil {
		return r, err
	}
	if rows.Len() > 0 {
		r.RowFound = true
		r.RowText = rows.Row(0).String(rows.Columns()[0])
	}
	return r, nil
}
