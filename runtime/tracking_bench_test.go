package runtime

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"
	_ "github.com/ncruces/go-sqlite3/vfs/memdb"
)

// Benchmarks of what an episode's end costs after a few writes: the diff
// and state hash (DiffAndHash) and a state task's score, after 1, 10 and
// 100 single-row writes, on benchenv with its orders table (the table the
// writes go to) grown to 1, 10 and 100 MiB. "full" scans every row of the
// written tables (what ran before change tracking), "tracked" reads the
// rows the episode changed.
//
//	go test -run '^$' -bench EpisodeEnd -count 6 -benchtime 20x ./runtime

var (
	grownMu  sync.Mutex
	grownDBs = map[int64][]byte{}
)

// grownBenchDB is benchenv's database with filler orders (a 1 KiB note
// each) up to size bytes, so that a full scan of orders follows the size.
func grownBenchDB(b testing.TB, size int64) []byte {
	b.Helper()
	loadBenchEnv(b)
	grownMu.Lock()
	defer grownMu.Unlock()
	if db, ok := grownDBs[size]; ok {
		return db
	}
	conn, err := sqlite3.Open("file:/bench-grow-orders?vfs=memdb")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", benchBundle.DB); err != nil {
		b.Fatal(err)
	}
	for cur := int64(len(benchBundle.DB)); cur < size; {
		rows := max(1, min(5000, (size-cur)/1200))
		err := conn.Exec(fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
INSERT INTO orders (user_id, product_id, quantity, status, created_at, note)
SELECT 1 + abs(random()) %% 1000, 1 + abs(random()) %% 500, 1, 'delivered', '2024-01-01T00:00:00Z', hex(randomblob(512)) FROM n`, rows))
		if err != nil {
			b.Fatal(err)
		}
		stmt, _, err := conn.Prepare(`SELECT page_count * page_size FROM pragma_page_count, pragma_page_size`)
		if err != nil {
			b.Fatal(err)
		}
		stmt.Step()
		cur = stmt.ColumnInt64(0)
		stmt.Close()
	}
	db, err := serdes.Serialize(conn, "main")
	if err != nil {
		b.Fatal(err)
	}
	grownDBs[size] = db
	return db
}

func loadGrownBenchEnv(b testing.TB, size int64) *Env {
	b.Helper()
	db := grownBenchDB(b, size)
	bundle := *benchBundle
	bundle.DB = db
	e, err := LoadBundle(context.Background(), &bundle, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func BenchmarkEpisodeEnd(b *testing.B) {
	for _, mib := range []int64{1, 10, 100} {
		e := loadGrownBenchEnv(b, mib<<20)
		for _, writes := range []int{1, 10, 100} {
			args := make([][]byte, writes)
			for i := range args {
				args[i] = []byte(`{"order_id":` + strconv.Itoa(17+i*61) + `,"status":"cancelled"}`)
			}
			for _, path := range []string{"full", "tracked"} {
				for _, what := range []string{"diffhash", "score"} {
					b.Run(fmt.Sprintf("%dMiB/%d-writes/%s/path=%s", mib, writes, what, path), func(b *testing.B) {
						ep := newEpisode(b, e, "cancel-pending", 1)
						ep.fullScan = path == "full"
						var spent time.Duration
						for b.Loop() {
							for _, a := range args {
								benchCall(b, ep, "set_order_status", a)
							}
							t0 := time.Now()
							if what == "diffhash" {
								if _, _, err := ep.DiffAndHash(); err != nil {
									b.Fatal(err)
								}
							} else if _, err := ep.Score(context.Background(), nil); err != nil {
								b.Fatal(err)
							}
							spent += time.Since(t0)
							if err := ep.Reset(); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), what+"-ns/op")
					})
				}
			}
		}
	}
}

// BenchmarkTrackedWrite is what the pre-update hook adds to a write: a
// single-row write call on benchenv, and one statement updating 1,000
// rows of a tracked table (edge's nc), with the hook and without.
func BenchmarkTrackedWrite(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "hook=off", true: "hook=on"}[on]
		trackWrites = on
		bench := loadBenchEnv(b)
		edge, err := LoadBundle(context.Background(), testBundle(b, "edge", false), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { edge.Close() })
		b.Run("1-row/"+name, func(b *testing.B) {
			ep := newEpisode(b, bench, "", 1)
			args := [][]byte{[]byte(`{"order_id":17,"status":"cancelled"}`), []byte(`{"order_id":17,"status":"pending"}`)}
			i := 0
			for b.Loop() {
				benchCall(b, ep, "set_order_status", args[i%2])
				i++
			}
		})
		b.Run("1000-rows/"+name, func(b *testing.B) {
			ep := newEpisode(b, edge, "", 1)
			benchCall(b, ep, "exec", []byte(`{"sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) INSERT INTO nc SELECT 'k' || x, x FROM c"}`))
			args := [][]byte{[]byte(`{"sql":"UPDATE nc SET v = 'a' WHERE k LIKE 'k%'"}`), []byte(`{"sql":"UPDATE nc SET v = 'b' WHERE k LIKE 'k%'"}`)}
			i := 0
			for b.Loop() {
				benchCall(b, ep, "exec", args[i%2])
				i++
			}
		})
	}
	trackWrites = true
}
