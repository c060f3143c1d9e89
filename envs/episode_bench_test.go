package envs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"
	_ "github.com/ncruces/go-sqlite3/vfs/memdb"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

// BenchmarkEpisode is issue 35's episode cost, in-process: a fresh episode
// of each task in turn, its ground-truth calls and its score (with the
// expected answer), on a τ-bench port and on the synthesized environments,
// at their shipped size and with every table ten times as large ("-x10":
// each row copied nine times under new keys; answers may then change, so
// rewards are not checked there). "-whole" is a synthesized environment
// with its checks forced onto the whole-table comparison (every
// wasmenv_written(t) replaced by NULL): the cost before the checks read
// the change set.
func BenchmarkEpisode(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"taubench-retail", "taubench-airline", "airline", "sakila", "northwind"} {
		for _, v := range []struct {
			whole bool
			times int
		}{{false, 1}, {true, 1}, {false, 10}, {true, 10}} {
			whole := v.whole
			if whole && name[:3] == "tau" {
				continue
			}
			label := name
			if whole {
				label += "-whole"
			}
			if v.times > 1 {
				label += fmt.Sprintf("-x%d", v.times)
			}
			b.Run(label, func(b *testing.B) {
				dir := b.TempDir()
				if err := envs.Extract(name, dir); err != nil {
					b.Fatal(err)
				}
				bundle, err := compiler.Build(ctx, dir, compiler.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if v.times > 1 {
					if bundle.DB, err = scaleDB(bundle.DB, v.times); err != nil {
						b.Fatal(err)
					}
				}
				if whole {
					for i := range bundle.Tasks {
						for j, c := range bundle.Tasks[i].Checks {
							bundle.Tasks[i].Checks[j].SQL = writtenCall.ReplaceAllString(c.SQL, "nullif($1, $1)")
						}
					}
				}
				env, err := runtime.LoadBundle(ctx, bundle, runtime.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer env.Close()
				b.ResetTimer()
				for i := range b.N {
					runEpisode(ctx, b, env, &bundle.Tasks[i%len(bundle.Tasks)], v.times == 1)
				}
			})
		}
	}
}

func runEpisode(ctx context.Context, b *testing.B, env *runtime.Env, t *envpkg.Task, wantOne bool) {
	ep, err := env.NewEpisode(t.ID, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer ep.Close()
	for _, c := range t.Calls {
		if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
			b.Fatal(err)
		}
	}
	var answer *string
	if t.Answer != nil {
		r := t.Answer.Reply()
		answer = &r
	}
	s, err := ep.Score(ctx, answer)
	if err != nil {
		b.Fatal(err)
	}
	if wantOne && s.Reward != 1 {
		b.Fatalf("task %s: ground truth scores %v", t.ID, s.Reward)
	}
}

// scaleDB copies every row of every table times-1 times under new keys:
// a column of a primary key, a unique index or a reference gets an offset
// (a number) or a suffix (text), so that each copy is a world of its own
// (a customer's rentals stay as many); a copy that still collides is left
// out.
func scaleDB(db []byte, times int) ([]byte, error) {
	conn, err := sqlite3.Open("file:/episode-bench-scale?vfs=memdb")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", db); err != nil {
		return nil, err
	}
	// Copies of a key column and of a reference to it move together (the
	// same offset or suffix), but not every reference is a key column.
	if err := conn.Exec(`PRAGMA foreign_keys = OFF`); err != nil {
		return nil, err
	}
	var tables []string
	stmt, _, err := conn.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return nil, err
	}
	for stmt.Step() {
		tables = append(tables, stmt.ColumnText(0))
	}
	stmt.Close()
	for _, t := range tables {
		q := `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		keyed := map[string]bool{}
		st, _, err := conn.Prepare(`SELECT ii.name FROM pragma_index_list(?1) AS il, pragma_index_info(il.name) AS ii WHERE il."unique"
			UNION SELECT name FROM pragma_table_info(?1) WHERE pk > 0
			UNION SELECT "from" FROM pragma_foreign_key_list(?1)`)
		if err != nil {
			return nil, err
		}
		st.BindText(1, t)
		for st.Step() {
			keyed[st.ColumnText(0)] = true
		}
		st.Close()
		var cols, exprs []string
		st, _, err = conn.Prepare(`SELECT name FROM pragma_table_info(?)`)
		if err != nil {
			return nil, err
		}
		st.BindText(1, t)
		for st.Step() {
			c := `"` + strings.ReplaceAll(st.ColumnText(0), `"`, `""`) + `"`
			cols = append(cols, c)
			if keyed[st.ColumnText(0)] {
				c = fmt.Sprintf("CASE WHEN typeof(%[1]s) IN ('integer', 'real') THEN %[1]s + k * 1000000000 ELSE %[1]s || '#' || k END", c)
			}
			exprs = append(exprs, c)
		}
		st.Close()
		list := strings.Join(cols, ", ")
		if err := conn.Exec(fmt.Sprintf(`CREATE TEMP TABLE bench_orig AS SELECT %s FROM %s`, list, q)); err != nil {
			return nil, err
		}
		if err := conn.Exec(fmt.Sprintf(`WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < %d)
			INSERT OR IGNORE INTO %s (%s) SELECT %s FROM n, temp.bench_orig`, times-1, q, list, strings.Join(exprs, ", "))); err != nil {
			return nil, fmt.Errorf("scale %s: %w", t, err)
		}
		if err := conn.Exec(`DROP TABLE temp.bench_orig`); err != nil {
			return nil, err
		}
	}
	return serdes.Serialize(conn, "main")
}
