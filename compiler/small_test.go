package compiler

import (
	"context"
	"strings"
	"testing"
)

// Issue 14, point 12: a blank var keeps no state; a predeclared type that
// is not supported says so instead of "declare it in package tools";
// byte and rune are integers.
func TestSmallSourceCases(t *testing.T) {
	ok := `package tools

// Args has a byte and a rune.
type Args struct {
	// A byte.
	B byte ` + "`json:\"b\"`" + `
	// A rune.
	R rune ` + "`json:\"r\"`" + `
}

var _ = F

// F echoes.
func F(a Args) (string, error) { return string(a.R) + string(rune(a.B)), nil }
`
	b, err := Build(context.Background(), writeEnv(t, ok, nil), Options{})
	if err != nil {
		t.Fatalf("var _ and byte/rune: %v", err)
	}
	if s := string(b.Manifest.Tools[0].InputSchema); !strings.Contains(s, `"maximum":255`) {
		t.Errorf("byte's range missing: %s", s)
	}
	bad := `package tools

// Args has a complex number.
type Args struct {
	// C.
	C complex128 ` + "`json:\"c\"`" + `
}

// F echoes.
func F(a Args) (string, error) { return "", nil }
`
	_, err = Build(context.Background(), writeEnv(t, bad, nil), Options{})
	if err == nil || !strings.Contains(err.Error(), "complex128 is not supported") || strings.Contains(err.Error(), "declared in package tools") {
		t.Errorf("complex128: %v", err)
	}
}
