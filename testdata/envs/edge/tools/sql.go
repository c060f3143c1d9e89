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
