package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Complexified says what Complexify added and what it left alone.
type Complexified struct {
	Rows    map[string]int    `json:"distractor_rows"` // per table
	Skipped map[string]string `json:"skipped_tables"`  // table → why
}

// ComplexifyOptions shape Complexify. Zero values take the defaults noted.
type ComplexifyOptions struct {
	Share   float64 // distractors per table as a share of its rows; default 0.2
	MaxRows int     // at most this many per table; default 200
	Seed    int64
	Runtime runtime.Options
}

// Complexify returns a copy of the bundle whose database has distractor
// rows: near-duplicates of sampled rows of every table with a single-column
// key, the values a person names rows by (UNIQUE text columns, a text key)
// perturbed so they stay unique and read like a sibling ("olivia.chen2@…",
// "Olivia Chen Jr."), every other column copied (two people with the same
// name, more children under the same parent). A table's distractors are
// kept only if every task of the bundle still scores 1.0 on its ground
// truth with them (checked table by table); otherwise the table is named in
// Skipped with the first task it broke. The bundle's tools and tasks are
// unchanged; its hash is new.
func Complexify(ctx context.Context, b *envpkg.Bundle, opts ComplexifyOptions) (*envpkg.Bundle, *Complexified, error) {
	if opts.Share <= 0 {
		opts.Share = 0.2
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = 200
	}
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", slices.Clone(b.DB)); err != nil {
		return nil, nil, err
	}
	if err := conn.Exec("PRAGMA foreign_keys = ON"); err != nil {
		return nil, nil, err
	}
	tables, err := complexTables(conn)
	if err != nil {
		return nil, nil, err
	}
	out := &Complexified{Rows: map[string]int{}, Skipped: map[string]string{}}
	r := rand.New(rand.NewPCG(uint64(opts.Seed), 0x636f6d70))
	img := b.DB
	for _, t := range tables {
		if t.skip != "" {
			out.Skipped[t.name] = t.skip
			continue
		}
		n, err := addDistractors(conn, t, opts, r)
		if err != nil {
			return nil, nil, fmt.Errorf("complexify %s: %w", t.name, err)
		}
		if n == 0 {
			out.Skipped[t.name] = "no row could be copied within the schema's constraints"
			continue
		}
		next, err := serdes.Serialize(conn, "main")
		if err != nil {
			return nil, nil, err
		}
		broken, err := brokenTask(ctx, b, next, opts.Runtime)
		if err != nil {
			return nil, nil, err
		}
		if broken != "" {
			// Undo: back to the image before this table.
			if err := serdes.Deserialize(conn, "main", slices.Clone(img)); err != nil {
				return nil, nil, err
			}
			if err := conn.Exec("PRAGMA foreign_keys = ON"); err != nil {
				return nil, nil, err
			}
			out.Skipped[t.name] = "distractors would change the ground truth of task " + broken
			continue
		}
		img = next
		out.Rows[t.name] = n
	}
	final := img
	if len(out.Rows) > 0 {
		if err := conn.Exec("VACUUM"); err != nil {
			return nil, nil, err
		}
		vacuumed, err := serdes.Serialize(conn, "main")
		if err != nil {
			return nil, nil, err
		}
		// VACUUM may renumber the rowids of tables without an INTEGER
		// key: the image shipped is the one checked.
		broken, err := brokenTask(ctx, b, vacuumed, opts.Runtime)
		if err != nil {
			return nil, nil, err
		}
		if broken == "" {
			final = vacuumed
		}
	}
	nb := *b
	nb.DB = final
	if _, err := envpkg.Encode(&nb); err != nil { // fills the new hash
		return nil, nil, err
	}
	return &nb, out, nil
}

type complexTable struct {
	name    string
	cols    []string
	intKey  string         // an INTEGER PRIMARY KEY column: left out, SQLite assigns it
	perturb map[string]int // column → kind of perturbation (key or unique text)
	rows    int
	skip    string
}

func complexTables(conn *sqlite3.Conn) ([]complexTable, error) {
	names, err := queryStrings(conn, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var out []complexTable
	for _, name := range names {
		t := complexTable{name: name, perturb: map[string]int{}}
		q := quoteIdent(name)
		stmt, _, err := conn.Prepare(`SELECT name, type, pk FROM pragma_table_xinfo(?) WHERE hidden = 0`)
		if err != nil {
			return nil, err
		}
		stmt.BindText(1, name)
		var pks []string
		types := map[string]string{}
		for stmt.Step() {
			c, typ, pk := stmt.ColumnText(0), strings.ToUpper(stmt.ColumnText(1)), stmt.ColumnInt(2)
			t.cols = append(t.cols, c)
			types[c] = typ
			if pk > 0 {
				pks = append(pks, c)
			}
		}
		err = stmt.Close()
		if err != nil {
			return nil, err
		}
		switch {
		case len(pks) > 1:
			t.skip = "composite primary key: a copy would need new keys in several columns"
		case len(pks) == 1 && types[pks[0]] == "INTEGER":
			t.intKey = pks[0]
		case len(pks) == 1:
			t.perturb[pks[0]] = 1
		}
		uniq, err := queryStrings(conn, `SELECT ii.name FROM pragma_index_list(`+sqlString(name)+`) il
			JOIN pragma_index_info(il.name) ii WHERE il."unique" AND il.origin <> 'pk'
			AND (SELECT COUNT(*) FROM pragma_index_info(il.name)) = 1`)
		if err != nil {
			return nil, err
		}
		for _, c := range uniq {
			t.perturb[c] = 1
		}
		if err := countRows(conn, q, &t.rows); err != nil {
			return nil, err
		}
		if t.skip == "" && t.rows == 0 {
			t.skip = "empty"
		}
		out = append(out, t)
	}
	return out, nil
}

func addDistractors(conn *sqlite3.Conn, t complexTable, opts ComplexifyOptions, r *rand.Rand) (int, error) {
	want := min(opts.MaxRows, max(1, int(float64(t.rows)*opts.Share)))
	var cols []string
	for _, c := range t.cols {
		if c != t.intKey {
			cols = append(cols, c)
		}
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteIdent(c)
	}
	sel, _, err := conn.Prepare(`SELECT ` + strings.Join(quoted, ", ") + ` FROM ` + quoteIdent(t.name) + ` ORDER BY rowid`)
	if err != nil {
		return 0, err
	}
	var rows [][]any
	for sel.Step() {
		row := make([]any, len(cols))
		for i := range cols {
			switch sel.ColumnType(i) {
			case sqlite3.INTEGER:
				row[i] = sel.ColumnInt64(i)
			case sqlite3.FLOAT:
				row[i] = sel.ColumnFloat(i)
			case sqlite3.TEXT:
				row[i] = sel.ColumnText(i)
			case sqlite3.BLOB:
				row[i] = sel.ColumnBlob(i, nil)
			}
		}
		rows = append(rows, row)
	}
	if err := sel.Close(); err != nil {
		return 0, err
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	ins, _, err := conn.Prepare(`INSERT INTO ` + quoteIdent(t.name) + ` (` + strings.Join(quoted, ", ") + `) VALUES (` + marks + `)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	added := 0
	for _, i := range r.Perm(len(rows)) {
		if added == want {
			break
		}
		row := slices.Clone(rows[i])
		ok := true
		for j, c := range cols {
			if t.perturb[c] == 0 {
				continue
			}
			s, isText := row[j].(string)
			if !isText {
				ok = false
				break
			}
			row[j] = nearDuplicate(s, r)
		}
		if !ok {
			continue
		}
		for j, v := range row {
			switch v := v.(type) {
			case nil:
				ins.BindNull(j + 1)
			case int64:
				ins.BindInt64(j+1, v)
			case float64:
				ins.BindFloat(j+1, v)
			case string:
				ins.BindText(j+1, v)
			case []byte:
				ins.BindBlob(j+1, v)
			}
		}
		ins.Step()
		// A trigger's RAISE(IGNORE) ends the insert without an error and
		// without a row: count rows, not statements.
		if err := ins.Reset(); err == nil && conn.Changes() == 1 {
			added++
		}
		// A constraint, a CHECK or a trigger's RAISE refused the copy: the
		// schema's rules stand, that row is simply not duplicated.
		ins.ClearBindings()
	}
	return added, nil
}

var suffixes = []string{" Jr.", " II", "-Lee", "s", "e"}

// nearDuplicate perturbs a value a person names a row by: an email gets a
// digit before its @, a code its number bumped, other text a suffix.
func nearDuplicate(s string, r *rand.Rand) string {
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		return s[:at] + fmt.Sprint(2+r.IntN(8)) + s[at:]
	}
	if !strings.Contains(s, " ") && strings.ContainsAny(s, "0123456789") {
		return s + "-" + fmt.Sprint(2+r.IntN(8))
	}
	return s + suffixes[r.IntN(len(suffixes))]
}

// brokenTask returns the first task whose ground truth no longer scores
// 1.0 on the bundle with img as its database, "" if none.
func brokenTask(ctx context.Context, b *envpkg.Bundle, img []byte, ropts runtime.Options) (string, error) {
	nb := *b
	nb.DB = img
	if _, err := envpkg.Encode(&nb); err != nil {
		return "", err
	}
	env, err := runtime.LoadBundle(ctx, &nb, ropts)
	if err != nil {
		return "", err
	}
	defer env.Close()
	var keep collect
	// Two seeds: a tool that draws from the episode's randomness must
	// hold on more than one.
	if _, err := rl.Run(ctx, []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 2, MaxTurns: 64, Concurrency: 8}, &keep); err != nil {
		return "", err
	}
	var broken []string
	for _, r := range keep.rollouts {
		if r.Reward != 1 {
			broken = append(broken, r.Task)
		}
	}
	if len(broken) == 0 {
		return "", nil
	}
	slices.Sort(broken)
	return broken[0], nil
}

type collect struct{ rollouts []rl.Rollout }

func (c *collect) Write(g []rl.Rollout) error { c.rollouts = append(c.rollouts, g...); return nil }
func (c *collect) Close() error               { return nil }

func queryStrings(conn *sqlite3.Conn, sql string) ([]string, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out, stmt.Close()
}

func countRows(conn *sqlite3.Conn, quotedTable string, n *int) error {
	stmt, _, err := conn.Prepare(`SELECT COUNT(*) FROM ` + quotedTable)
	if err != nil {
		return err
	}
	if stmt.Step() {
		*n = stmt.ColumnInt(0)
	}
	return stmt.Close()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func sqlString(s string) string  { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
