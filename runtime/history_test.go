package runtime

import (
	"context"
	"fmt"
	"github.com/ncruces/go-sqlite3"
	"strings"
	"testing"
)

// A call that needs memory gets it however much garbage earlier calls on
// the same instance left behind (a pool of one makes the sharing certain).
func TestGarbageDoesNotRunOut(t *testing.T) { eachEngine(t, testGarbageDoesNotRunOut) }

func testGarbageDoesNotRunOut(t *testing.T, engine string) {
	e, err := LoadBundle(context.Background(), testBundle(t, "history", false), Options{PoolSize: 1, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(t, e, "", 1)
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for i := range n {
		if r := call(t, ep, "alloc", `{"bytes":2000000}`); r.Content != "2000000" {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
}

// SQLite's connection counters are episode state: a reset starts them
// fresh, and sdk.Exec reports only the statement's own rows.
func TestSQLCountersStartFreshAtReset(t *testing.T) { eachEngine(t, testSQLCountersStartFreshAtReset) }

func testSQLCountersStartFreshAtReset(t *testing.T, engine string) {
	e := loadEnvWith(t, "history", engine)
	ep := newEpisode(t, e, "", 1)
	fresh := call(t, ep, "counters", `{}`).Content
	if fresh != `{"last":0,"changes":0,"total":0}` {
		t.Errorf("fresh episode: %s", fresh)
	}
	// The trigger writes two audit rows: RowsAffected is the one item.
	if r := call(t, ep, "add", `{"name":"three"}`); r.Content != `{"last_id":3,"rows":1}` {
		t.Errorf("add: %s", r.Content)
	}
	if r := call(t, ep, "touch", `{}`); r.Content != `{"last_id":3,"rows":0}` {
		t.Errorf("touch: %s", r.Content)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := call(t, ep, "counters", `{}`).Content; r != fresh {
		t.Errorf("after reset: %s, fresh episode: %s", r, fresh)
	}
	if r := call(t, ep, "touch", `{}`); r.Content != `{"last_id":0,"rows":0}` {
		t.Errorf("touch after reset: %s", r.Content)
	}
	if r := call(t, ep, "add", `{"name":"three"}`); r.Content != `{"last_id":3,"rows":1}` {
		t.Errorf("add after reset: %s", r.Content)
	}
}

// historyScript is one episode's calls; its outputs must not depend on
// what ran before on the instances that served it.
var historyScript = [][2]string{
	{"clock", `{}`}, {"counters", `{}`}, {"add", `{"name":"x"}`}, {"counters", `{}`},
	{"alloc", `{"bytes":3000000}`}, {"touch", `{}`}, {"counters", `{}`}, {"clock", `{}`},
	{"remove", `{"id":1}`}, {"counters", `{}`}, {"add", `{"name":"y"}`},
	{"order", `{}`}, {"pointer", `{"objects":3}`}, {"order", `{}`}, {"pointer", `{"objects":50}`},
}

func runScript(t *testing.T, ep *Episode) string {
	t.Helper()
	var b strings.Builder
	for _, c := range historyScript {
		r := call(t, ep, c[0], c[1])
		fmt.Fprintf(&b, "%s %s -> %v %s\n", c[0], c[1], r.IsError, r.Content)
	}
	d, h, err := ep.DiffAndHash()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "diff %+v\nhash %s\n", d, h)
	return b.String()
}

// The same episode gives byte-identical outputs, diff and state hash
// first on a fresh instance, after other episodes, interleaved with
// another, and after a memory-heavy one.
func TestCallsDoNotDependOnHistory(t *testing.T) { eachEngine(t, testCallsDoNotDependOnHistory) }

func testCallsDoNotDependOnHistory(t *testing.T, engine string) {
	e, err := LoadBundle(context.Background(), testBundle(t, "history", false), Options{PoolSize: 1, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	first := runScript(t, newEpisode(t, e, "", 7))
	// Addresses print as one constant, and a map iterates the same way in
	// every call (compiler/guestpatch.go).
	if !strings.Contains(first, "{3 0xadd7e55}") || !strings.Contains(first, "{50 0xadd7e55}") {
		t.Errorf("addresses are not hidden:\n%s", first)
	}
	var orders []string
	for _, l := range strings.Split(first, "\n") {
		if strings.HasPrefix(l, "order ") {
			orders = append(orders, l)
		}
	}
	if len(orders) != 2 || orders[0] != orders[1] {
		t.Errorf("map order differs between calls: %q", orders)
	}

	// After other episodes, including a memory-heavy one.
	other := newEpisode(t, e, "", 8)
	runScript(t, other)
	for range 20 {
		call(t, other, "alloc", `{"bytes":4000000}`)
	}
	if again := runScript(t, newEpisode(t, e, "", 7)); again != first {
		t.Errorf("after other episodes:\n%s\nfirst run:\n%s", again, first)
	}

	// On a used episode reset to the same seed.
	if err := other.ResetSeed(7); err != nil {
		t.Fatal(err)
	}
	if again := runScript(t, other); again != first {
		t.Errorf("after a reset:\n%s\nfirst run:\n%s", again, first)
	}

	// Interleaved call by call with another episode.
	a, b := newEpisode(t, e, "", 7), newEpisode(t, e, "", 9)
	var out strings.Builder
	for _, c := range historyScript {
		call(t, b, c[0], c[1])
		r := call(t, a, c[0], c[1])
		fmt.Fprintf(&out, "%s %s -> %v %s\n", c[0], c[1], r.IsError, r.Content)
	}
	d, h, err := a.DiffAndHash()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "diff %+v\nhash %s\n", d, h)
	if out.String() != first {
		t.Errorf("interleaved:\n%s\nfirst run:\n%s", out.String(), first)
	}
}

// A statement with a bound LIMIT is not prepared again call after call
// (without QPSG, SQLite expires it whenever that parameter is bound or
// cleared), and its results follow every change of its parameters.
func TestBoundLimitIsNotPreparedAgain(t *testing.T) {
	e := loadEnv(t, "history")
	ep := newEpisode(t, e, "", 1)
	call(t, ep, "add", `{"name":"three"}`)
	for i, c := range [][2]string{
		{`{"limit":1,"offset":0}`, `[{"name":"one"}]`},
		{`{"limit":1,"offset":0}`, `[{"name":"one"}]`},
		{`{"limit":1,"offset":1}`, `[{"name":"two"}]`},
		{`{"limit":2,"offset":1}`, `[{"name":"two"},{"name":"three"}]`},
		{`{"limit":2,"offset":1}`, `[{"name":"two"},{"name":"three"}]`},
		{`{"limit":0,"offset":0}`, `[]`},
		{`{"limit":1,"offset":2}`, `[{"name":"three"}]`},
	} {
		if r := call(t, ep, "page", c[0]); r.Content != c[1] {
			t.Errorf("call %d page(%s) = %s, want %s", i, c[0], r.Content, c[1])
		}
	}
	const page = `SELECT name FROM item ORDER BY id LIMIT ? OFFSET ?`
	gs := ep.stmts[page]
	if gs == nil {
		t.Fatal("page statement not cached")
	}
	before := gs.stmt.Status(sqlite3.STMTSTATUS_REPREPARE, false)
	for range 5 {
		call(t, ep, "page", `{"limit":2,"offset":0}`)
	}
	if n := gs.stmt.Status(sqlite3.STMTSTATUS_REPREPARE, false) - before; n > 1 {
		t.Errorf("prepared again %d times in 5 calls with the same limit", n)
	}
}

// A bundle says whether its module has the guest patches; one built before
// them (no guest_patches in its manifest) loads, and says it has not.
func TestBundleSaysItIsHistoryIsolated(t *testing.T) {
	b := testBundle(t, "history", false)
	e := loadEnv(t, "history")
	if !e.HistoryIsolated() || b.Manifest.GuestPatches == 0 {
		t.Fatalf("a bundle built now: HistoryIsolated %v, guest_patches %d", e.HistoryIsolated(), b.Manifest.GuestPatches)
	}
	old := *b
	old.Manifest.GuestPatches = 0
	oe, err := LoadBundle(context.Background(), &old, Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer oe.Close()
	if oe.HistoryIsolated() {
		t.Fatal("a bundle without guest patches claims isolation")
	}
}
