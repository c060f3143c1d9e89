package tasks

import (
	"encoding/json"
	"fmt"
)

// sqlValue turns a decoded JSON value into a value to bind.
func sqlValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// argValue converts a value to a tool parameter of JSON type typ.
func argValue(v any, typ string) any {
	v = sqlValue(v)
	switch typ {
	case "string":
		return fmt.Sprint(v)
	case "boolean":
		return v == int64(1)
	}
	return v
}
