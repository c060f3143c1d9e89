package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
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

// checkSchema refuses references and bounds the size and depth of a
// schema; it returns the schema's size in nodes.
func checkSchema(raw json.RawMessage) (int, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, err
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
	err := walk(doc, 0)
	return nodes, err
}

// inlineValidation is the cost (schema nodes × argument bytes) under which
// arguments are validated on the caller's goroutine; above it validation
// runs beside the call's deadline, since it happens before the watchdog
// watches the call.
const inlineValidation = 1 << 22

// validateWithin validates a call's arguments, giving up (late) when the
// call's time limit or ctx runs out first. Without references a
// validation's cost is bounded (schema nodes × argument nodes), so one given
// up on still ends; it just no longer delays the caller.
func (e *Env) validateWithin(ctx context.Context, idx int, doc any, argBytes int) (late bool, err error) {
	s := e.schemas[idx]
	if e.schemaNodes[idx]*argBytes < inlineValidation {
		return false, s.Validate(doc)
	}
	done := make(chan error, 1)
	go func() { done <- s.Validate(doc) }()
	t := time.NewTimer(e.callWall)
	defer t.Stop()
	select {
	case err := <-done:
		return false, err
	case <-t.C:
	case <-ctx.Done():
	}
	return true, nil
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
