package arena

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// Distractors on the store environment keep every task's ground truth at
// 1.0 and give the bundle a new hash; a table whose distractors would
// change a task's result (a task that counts its rows) is left alone and
// named with that task.
func TestComplexifyKeepsGroundTruth(t *testing.T) {
	b := *rltest.Bundle(t, "store")
	var customers int
	{
		conn, err := openImageForTest(b.DB)
		if err != nil {
			t.Fatal(err)
		}
		countRows(conn, `"customers"`, &customers)
		conn.Close()
	}
	if customers == 0 {
		t.Fatal("store has no customers")
	}
	b.Tasks = append(append([]envpkg.Task(nil), b.Tasks...), envpkg.Task{
		ID: "count-customers", Instruction: "How many customers are there?",
		Checks: []envpkg.Check{{Name: "count", SQL: fmt.Sprintf("SELECT COUNT(*) = %d FROM main.customers", customers)}},
	})
	ctx := context.Background()
	nb, got, err := Complexify(ctx, &b, ComplexifyOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range got.Rows {
		total += n
	}
	if total == 0 || nb.Hash == b.Hash || len(nb.DB) <= len(b.DB)/2 {
		t.Fatalf("added %v rows, hash %s → %s", got.Rows, b.Hash, nb.Hash)
	}
	t.Logf("distractors %v, skipped %v", got.Rows, got.Skipped)
	if why := got.Skipped["return_items"]; !strings.Contains(why, "composite") {
		t.Errorf("return_items (composite key): skipped %q", why)
	}
	if len(got.Rows) < 5 {
		t.Errorf("distractors in %d tables, want at least 5: %v", len(got.Rows), got.Rows)
	}
	if why := got.Skipped["customers"]; !strings.Contains(why, "count-customers") {
		t.Errorf("customers: skipped %q, rows %d: want skipped for count-customers", why, got.Rows["customers"])
	}
	// Every task, the hand-written ones and the counting one, on the final
	// database.
	if broken, err := brokenTask(ctx, nb, nb.DB, runtime.Options{}); err != nil || broken != "" {
		t.Fatalf("after complexify: task %q broken (%v)", broken, err)
	}
	again, _, err := Complexify(ctx, &b, ComplexifyOptions{Seed: 3})
	if err != nil || again.Hash != nb.Hash {
		t.Errorf("same seed, other bundle: %s vs %s (%v)", again.Hash, nb.Hash, err)
	}
}

func openImageForTest(img []byte) (*sqlite3.Conn, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	return conn, serdes.Deserialize(conn, "main", slices.Clone(img))
}
