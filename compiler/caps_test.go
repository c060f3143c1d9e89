package compiler

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// bigLiteral is tool code with a composite literal of about n bytes: the
// kind of answer a hostile model gives to make go build take gigabytes
// (~100-210 MB of compiler memory per MB of literal).
func bigLiteral(n int) string {
	var b strings.Builder
	b.WriteString("package tools\n\ntype row struct {\n\tA int\n\tB string\n}\n\nconst table = 0\n\n// F x.\nfunc F() (int, error) {\n\trows := []row{\n")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("\t\t{A: 1234567, B: \"abcdefghijklmnopqrstuvwxyz\"},\n")
	}
	b.WriteString("\t}\n\treturn len(rows), nil\n}\n")
	return b.String()
}

// Source over the cap is refused before it is parsed or built.
func TestSourceSizeCap(t *testing.T) {
	src := bigLiteral(DefaultMaxSourceBytes + 1000)
	_, err := Build(context.Background(), writeEnv(t, src, nil), Options{})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "over the limit of 1.0 MiB") {
		t.Fatalf("a %d-byte tool file: %v", len(src), err)
	}
	// The cap is an option; a negative one lifts it.
	_, err = Build(context.Background(), writeEnv(t, okTool, nil), Options{MaxSourceBytes: 100})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 100 B") {
		t.Fatalf("MaxSourceBytes 100: %v", err)
	}
}

// `var _ = f()` passed the static checks and ran f at every instance
// start, outside any call's limits, as init would (which is refused).
func TestBlankVarInitializerMayNotCall(t *testing.T) {
	for name, src := range map[string]string{
		"call": `package tools
func spin() int { n := 0; for i := 0; i < 1e10; i++ { n += i }; return n }
var _ = spin()
// F x.
func F() (string, error) { return "", nil }
`,
		"grouped func literal": `package tools
var (
	_ = func() int { for {} }()
)
// F x.
func F() (string, error) { return "", nil }
`,
		"nested in a literal": `package tools
func spin() int { for {} }
var _ = []int{1, spin()}
// F x.
func F() (string, error) { return "", nil }
`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), writeEnv(t, src, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), "runs when an instance starts") {
				t.Fatalf("want the initializer refused, got: %v", err)
			}
		})
	}
	// A compile-time interface assertion calls nothing and stays allowed.
	ok := `package tools
type stringer interface{ String() string }
type T struct{}
func (T) String() string { return "" }
var _ stringer = T{}
// F x.
func F() (string, error) { return "", nil }
`
	if _, err := Build(context.Background(), writeEnv(t, ok, nil), Options{}); err != nil {
		t.Fatalf("var _ I = T{}: %v", err)
	}
}

// go build runs under a data limit: a build that needs more fails with a
// message that names the limit, instead of taking the machine's memory.
func TestBuildMemoryCap(t *testing.T) {
	if !buildMemoryCapped {
		t.Skip("no per-process memory limit on this OS")
	}
	_, err := Build(context.Background(), writeEnv(t, okTool, nil), Options{NoCache: true, CacheDir: t.TempDir(), MaxBuildMemory: 16 << 20})
	if err == nil || !strings.Contains(err.Error(), "go build ran out of memory under the limit of 16.0 MiB") {
		t.Fatalf("a 16 MiB build limit: %v", err)
	}
}
