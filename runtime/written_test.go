package runtime

import "testing"

// wasmenv_written gives a check the rows the episode wrote: none on a fresh
// episode, the rowids of inserted, updated and deleted rows after writes,
// none again after a reset, and NULL for a name that is no rowid table.
func TestWrittenFunc(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	const q = `SELECT wasmenv_written('big') AS big, wasmenv_written('NC') AS nc, wasmenv_written('nosuch') AS nosuch`
	if r := query(t, ep, q); r.Content != `[{"big":"[]","nc":"[]","nosuch":null}]` {
		t.Fatalf("fresh: %s", r.Content)
	}
	execSQL(t, ep, "INSERT INTO big VALUES (7, 7)")
	execSQL(t, ep, "UPDATE nc SET v = 'x' WHERE k = 'a'")
	if r := query(t, ep, `SELECT wasmenv_written('big') AS big, json_array_length(wasmenv_written('nc')) AS nc`); r.Content != `[{"big":"[7]","nc":1}]` {
		t.Fatalf("after writes: %s", r.Content)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := query(t, ep, q); r.Content != `[{"big":"[]","nc":"[]","nosuch":null}]` {
		t.Fatalf("after reset: %s", r.Content)
	}
}
