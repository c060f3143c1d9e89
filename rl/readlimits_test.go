package rl_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
)

// countingReader serves head, then n bytes of 'a', then tail, counting
// what was read: a long line costs no memory to make.
type countingReader struct {
	head, tail string
	n, read    int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		switch {
		case c.read < len(c.head):
			p[k] = c.head[c.read]
		case c.read < len(c.head)+c.n:
			p[k] = 'a'
		case c.read < len(c.head)+c.n+len(c.tail):
			p[k] = c.tail[c.read-len(c.head)-c.n]
		default:
			if k == 0 {
				return 0, io.EOF
			}
			return k, nil
		}
		k++
		c.read++
	}
	return k, nil
}

// A line over the record limit is refused once the limit was read, not
// after buffering the line (issue 37 finding 8: one 600 MB line took 3.1
// GB).
func TestReadRolloutsRefusesALongLineEarly(t *testing.T) {
	const limit = 1 << 20
	r := &countingReader{head: `{"env":"`, n: 16 * limit, tail: `","task":"t"}` + "\n"}
	err := rl.ReadRolloutsLimited(r, rl.ReadLimits{RecordBytes: limit}, func(*rl.Rollout) error { return nil })
	if !errors.Is(err, rl.ErrRolloutFile) || !strings.Contains(err.Error(), "longer than 1048576 bytes") {
		t.Fatalf("got %v", err)
	}
	if r.read > limit+128<<10 {
		t.Errorf("read %d bytes of a line over a %d-byte limit", r.read, limit)
	}
	// The default limit holds too.
	r = &countingReader{head: `{"env":"`, n: rl.DefaultRecordBytes + 1, tail: `"}`}
	if err := rl.ReadRollouts(r, func(*rl.Rollout) error { return nil }); !errors.Is(err, rl.ErrRolloutFile) {
		t.Fatalf("default limit: %v", err)
	}
}

// A toolset over its limit is refused, and so are compact lines that
// expand (with their toolset) past the expansion bound.
func TestReadRolloutsBoundsToolsetsAndExpansion(t *testing.T) {
	toolset := fmt.Sprintf(`{"record":"toolset2","toolset":"t1","env":"e","env_hash":"h","tools":[],"system":"%s"}`, strings.Repeat("s", 100_000))
	line := `{"env":"e","task":"t","index":0,"seed":1,"messages":[],"reward":0,"advantage":0,"turns":0,"tool_calls":0,"format_error":false,"format_errors":0,"env_error":false,"finish":"stop","checks":[],"state_hash":"","toolset":"t1"}`
	read := func(text string, lim rl.ReadLimits) (int, error) {
		n := 0
		err := rl.ReadRolloutsLimited(strings.NewReader(text), lim, func(*rl.Rollout) error { n++; return nil })
		return n, err
	}
	if _, err := read(toolset+"\n"+line, rl.ReadLimits{ToolsetBytes: 50_000}); !errors.Is(err, rl.ErrRolloutFile) || !strings.Contains(err.Error(), "a toolset of") {
		t.Errorf("toolset limit: %v", err)
	}
	text := toolset + "\n" + strings.Repeat(line+"\n", 1000)
	n, err := read(text, rl.ReadLimits{ExpandedBytes: 1 << 20, Expansion: 4})
	if !errors.Is(err, rl.ErrRolloutFile) || !strings.Contains(err.Error(), "expand to") || n == 0 || n >= 1000 {
		t.Errorf("expansion bound: %d lines, %v", n, err)
	}
	if n, err := read(text, rl.ReadLimits{}); err != nil || n != 1000 {
		t.Errorf("defaults: %d lines, %v", n, err)
	}
}

// JSON nested past the depth limit is refused wherever it is, unknown
// keys included (the Python reader refuses the same lines).
func TestReadRolloutsRefusesDeepNesting(t *testing.T) {
	deep := `{"env":"e","task":"t","extra":` + strings.Repeat("[", 129) + strings.Repeat("]", 129) + `}`
	err := rl.ReadRollouts(strings.NewReader(deep), func(*rl.Rollout) error { return nil })
	if !errors.Is(err, rl.ErrRolloutFile) || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("got %v", err)
	}
	ok := `{"env":"e","task":"t","extra":"` + strings.Repeat("[", 500) + `"}`
	if err := rl.ReadRollouts(strings.NewReader(ok), func(*rl.Rollout) error { return nil }); err != nil {
		t.Errorf("brackets in a string: %v", err)
	}
}
