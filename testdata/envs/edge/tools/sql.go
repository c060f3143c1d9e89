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
