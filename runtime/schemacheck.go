package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A tool's input schema comes from the bundle and is applied to every call
// before the call's time limit starts, so its cost must be bounded at load.
// The compiler writes schemas without references (it refuses recursive
// types); a hand-made bundle may not use them either, since a oneOf of two
// self-references over a deep array validates in exponential time. Without
// references, validation costs at most (schema nodes × argument nodes).
const (
	maxSchemaNodes = 4096
	maxSchemaDepth = 64
)

// checkSchema refuses references and bounds the size and depth of a schema.
func checkSchema(raw json.RawMessage) error {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	nodes := 0
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		nodes++
		if nodes > maxSchemaNodes {
			return fmt.Errorf("the schema has over %d nodes", maxSchemaNodes)
		}
		if depth > maxSchemaDepth {
			return fmt.Errorf("the schema nests deeper than %d levels", maxSchemaDepth)
		}
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" {
					return fmt.Errorf("%s is not allowed in a tool schema (references can make validation take exponential time)", k)
				}
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range v {
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(doc, 0)
}

// capMessage cuts an agent-visible message to at most n bytes, saying so.
func capMessage(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = " … (truncated)"
	if n <= len(more) {
		return s[:max(n, 0)]
	}
	cut := strings.ToValidUTF8(s[:n-len(more)], "")
	return cut + more
}
