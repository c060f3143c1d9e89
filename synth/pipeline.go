package synth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/progress"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/gates"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/tasks"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Options configure FromDB.
type Options struct {
	Out    string // environment source directory to write (required)
	Bundle string // bundle file to write too, "" for none
	Name   string // environment name (default: from the database file name)

	Tasks      int      // tasks to keep (default 100)
	Seed       int64    // sampling seed
	MaxChain   int      // most calls per task (0: 8; 1 allows only one-call reads)
	WriteShare *float64 // share of write tasks, 0 to 1 (nil: 0.5; 0: reads only)
	ReadOnly   bool     // generate no create/update/delete tools
	// Toolset is toolgen.ToolsetCRUD ("" too: every table's tools) or
	// toolgen.ToolsetDomain (the actions and the lookups a person's
	// question needs, within toolgen's limits).
	Toolset string
	// MaxRows caps the rows a table brings into the seed (default
	// emit.DefaultMaxRows); larger tables are sampled with the rows
	// their kept rows refer to.
	MaxRows int
	// StateReward adds "final state equals ground truth" to write tasks.
	StateReward bool
	// PlainShare is the most of the set that may be plain tasks (one row
	// in at most three calls; tasks.Options.PlainShare), 1 for no quota
	// (the mix in the order found). 0 means a quarter with the domain
	// toolset, whose sets are for tasks that need reasoning, and no quota
	// with the CRUD toolset, which keeps its full set of lookups.
	PlainShare float64
	// MinTasks is the floor of a short set (tasks.Options.MinTasks): plain
	// tasks past the quota fill a set that found fewer tasks that need
	// reasoning up to it. 0 means half of Tasks, -1 no floor.
	MinTasks int
	// WorkLimit bounds the work of each query on the source database
	// (dbmodel.Guard; 0: dbmodel.DefaultWorkLimit): a view that never
	// ends fails the run with a *dbmodel.WorkLimitError.
	WorkLimit int64
	// Rewriter, when set, rewrites instructions with a chat model, one
	// at a time (the library's; the CLI's --llm uses Design).
	Rewriter *tasks.Rewriter
	// Design, when set, is the model route (--llm): a model designs the
	// domain's actions and policy over the data, each gated by the smoke
	// stage with repair, and rewrites the kept tasks' wording
	// (synth/design, modelroute.go).
	Design *design.Stage
	// plan is the design in use.
	plan *design.Plan

	Compiler compiler.Options
	Runtime  runtime.Options
	// totals are the parent columns the source shows to be the sum of
	// their lines (lineTotals): place_ actions compute them.
	totals map[string]toolgen.Total
	// opens are the open actions the source's data allows (toolgen.Opens).
	opens map[string]*toolgen.Open
	// Log receives progress (a bar on a terminal); nil is silent.
	Log io.Writer
}

// Result is what FromDB made.
type Result struct {
	Model   *dbmodel.Model
	Spec    *toolgen.Spec
	Graph   *graph.Graph
	Bundle  *envpkg.Bundle // the final bundle (with tasks)
	Tasks   []envpkg.Task
	Smoke   []SmokeResult
	Summary Summary
}

// ErrSmoke is returned when a generated tool fails its smoke test.
var ErrSmoke = errors.New("synth: a generated tool failed its smoke test")

// ErrNoTasks is returned when no task survived (the environment, with its
// tools, is still written).
var ErrNoTasks = errors.New("synth: no task could be made")

// FromDB turns a SQLite database (or a directory of JSON collections) into
// an environment: model → tools → build → smoke tests → graph → tasks
// executed and gated → source directory (and bundle).
func FromDB(ctx context.Context, src string, opts Options) (*Result, error) {
	if opts.Out == "" {
		return nil, errors.New("synth: an output directory is required")
	}
	if opts.Tasks == 0 {
		opts.Tasks = 100
	}
	writeShare := 0.5
	if opts.WriteShare != nil {
		writeShare = *opts.WriteShare
	}
	if writeShare < 0 || writeShare > 1 || opts.MaxChain < 0 {
		return nil, fmt.Errorf("synth: write share %g (want 0 to 1) or max chain %d (want 1 or more) out of range", writeShare, opts.MaxChain)
	}
	// Preconditions first, not after the work: where the output goes, and
	// that the source can be read.
	if err := emit.CheckOut(opts.Out); err != nil {
		return nil, err
	}
	if opts.Bundle != "" {
		if fi, err := os.Stat(filepath.Dir(filepath.Clean(opts.Bundle))); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("synth: the bundle's folder %s does not exist", filepath.Dir(opts.Bundle))
		}
	}
	res := &Result{}
	sum := &res.Summary
	t0 := time.Now()
	step := func(name string, start time.Time) {
		sum.Timings = append(sum.Timings, Timing{name, time.Since(start).Seconds()})
	}

	start := time.Now()
	dbPath, cleanup, err := SourceDB(ctx, src, opts.Compiler)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	step("source", start)
	if opts.Name == "" {
		// Named after the database: library.sqlite gives "library".
		opts.Name = emit.EnvName(strings.TrimSuffix(filepath.Base(filepath.Clean(src)), filepath.Ext(src)))
	}
	// A plain path, not a URI: a file name with '#' or '%41' is that file.
	conn, err := sqlite3.OpenFlags(dbPath, sqlite3.OPEN_READONLY)
	if err != nil {
		return nil, fmt.Errorf("synth: open %s: %w", src, err)
	}
	defer conn.Close()
	// Every query on the source runs under ctx (SIGINT ends it mid-query)
	// and a work limit: the source's views are its author's code.
	defer dbmodel.Guard(ctx, conn, opts.WorkLimit)()

	start = time.Now()
	tables := progress.New(opts.Log, "tables") // nil Log: nil bar, draws nothing
	m, err := dbmodel.Read(conn, dbmodel.Options{Progress: tables.Update, Context: ctx, WorkLimit: opts.WorkLimit})
	if err != nil {
		return nil, err
	}
	res.Model = m
	objects, err := sourceObjects(conn)
	if err != nil {
		return nil, err
	}
	if objects, err = emit.CheckSchema(m, objects); err != nil {
		return nil, err
	}
	for _, o := range objects {
		if o.Type == "trigger" {
			m.MarkMaintained(o.Name, o.Table, o.SQL)
		}
	}
	sample, err := emit.Sample(conn, m, opts.MaxRows)
	if err != nil {
		return nil, interrupted(conn, err)
	}
	seed, err := emit.SeedSQL(conn, m, sample, objects...)
	if err != nil {
		return nil, interrupted(conn, err)
	}
	schema := emit.Schema(m, objects)
	if err := emit.VerifySchema(m, schema, objects); err != nil {
		return nil, err
	}
	step("model", start)
	if opts.totals, err = lineTotals(conn, m); err != nil {
		return nil, interrupted(conn, err)
	}
	if opts.opens, _, err = toolgen.Opens(conn, m); err != nil {
		return nil, interrupted(conn, err)
	}
	if opts.Design != nil {
		start = time.Now()
		if opts.plan, err = opts.Design.Propose(ctx, m, conn); err != nil && !errNoDesign(err, opts.Log) {
			return nil, err
		}
		applyPlan(m, opts.plan)
		step("design", start)
	}
	// Build and smoke-test; a tool that fails its smoke test is left out
	// (and named) and the rest built again, once: the run fails only when
	// nothing usable is left.
	st0, err := buildStage(ctx, src, opts, m, schema, seed, nil, step)
	if err != nil {
		return nil, err
	}
	for opts.Design != nil {
		// A designed action that failed its check goes back to the model
		// while repairs are left.
		failed := designedFailures(opts.plan, st0.spec, st0.smoke)
		if len(failed) == 0 {
			break
		}
		next, err := opts.Design.Repair(ctx, failed)
		if err != nil {
			st0.Close()
			return nil, err
		}
		if next == nil {
			break
		}
		st0.Close()
		opts.plan = next
		applyPlan(m, next)
		if st0, err = buildStage(ctx, src, opts, m, schema, seed, nil, step); err != nil {
			return nil, err
		}
	}
	if opts.Design != nil {
		opts.Design.Settle(opts.plan, designedFailures(opts.plan, st0.spec, st0.smoke))
	}
	stg := st0
	if failed := st0.failed(); len(failed) > 0 {
		for _, r := range st0.smoke {
			if !r.Passed {
				sum.SmokeFailed = append(sum.SmokeFailed, r.Tool+": "+r.Detail)
				m.Skip("tool %s: its smoke test failed (%s); left out", r.Tool, r.Detail)
			}
		}
		res.Spec, res.Graph, res.Smoke = st0.spec, st0.graph, st0.smoke
		if len(failed) == len(st0.spec.Tools) {
			st0.Close()
			return res, fmt.Errorf("%w: %s", ErrSmoke, strings.Join(sum.SmokeFailed, "; "))
		}
		st0.Close()
		if stg, err = buildStage(ctx, src, opts, m, schema, seed, failed, step); err != nil {
			return nil, err
		}
		if again := stg.failed(); len(again) > 0 {
			res.Spec, res.Graph, res.Smoke = stg.spec, stg.graph, stg.smoke
			stg.Close()
			var msgs []string
			for _, r := range res.Smoke {
				if !r.Passed {
					msgs = append(msgs, r.Tool+": "+r.Detail)
				}
			}
			return res, fmt.Errorf("%w: %s", ErrSmoke, strings.Join(msgs, "; "))
		}
	}
	defer stg.Close()
	spec, rt, built, env, b := stg.spec, stg.rt, stg.db, stg.env, stg.b
	res.Spec, res.Graph, res.Smoke = spec, stg.graph, stg.smoke

	start = time.Now()
	bar := progress.New(opts.Log, "tasks") // nil Log: nil bar, draws nothing
	checker := gates.NewWith(rt, opts.Seed, gates.Options{NothingEarnsNothing: true})
	kept, st, err := tasks.Synthesize(ctx, rt, spec, res.Graph, built, checker, tasks.Options{
		N: opts.Tasks, Seed: opts.Seed, MaxChain: opts.MaxChain, WriteShare: writeShare, StateReward: opts.StateReward, Rewriter: opts.Rewriter, PlainShare: plainShare(opts), MinTasks: opts.MinTasks, Progress: bar.Update})
	if err != nil {
		return nil, err
	}
	bar.Done()
	step("tasks", start)
	if opts.Design != nil && len(kept) > 0 {
		start = time.Now()
		if err := opts.Design.Reword(ctx, kept, m, built); err != nil {
			return nil, err
		}
		step("wording", start)
	}
	if opts.Design != nil {
		sum.Design = opts.Design.Report()
	}
	res.Tasks = kept

	start = time.Now()
	env.Tasks = kept
	if err := emit.Write(opts.Out, env); err != nil {
		return nil, err
	}
	// The final bundle is the built one with the kept tasks: rebuilding
	// the directory (wasmenv build OUT) gives the same bundle, without
	// loading the seed data a second time here.
	final := *b
	final.Tasks = kept
	data, err := envpkg.Encode(&final)
	if err != nil {
		return nil, fmt.Errorf("synth: the final bundle: %w", err)
	}
	if opts.Bundle != "" {
		if err := envpkg.WriteFileAtomic(opts.Bundle, data); err != nil {
			return nil, err
		}
	}
	res.Bundle = &final
	step("write", start)

	sum.fill(res, st)
	sum.Seconds = time.Since(t0).Seconds()
	if err := os.WriteFile(filepath.Join(opts.Out, "synth-summary.json"), sum.JSON(), 0o644); err != nil {
		return nil, err
	}
	if len(kept) == 0 && opts.Tasks > 0 {
		// One line that says why, not how many times it was tried.
		why := dbmodel.WhyNoStart(m)
		if why == "" {
			why = fmt.Sprintf("rows can be named, but no request made from them passed the gates (%d dropped) or reached a value to ask or change", st.Gates.Checked-st.Gates.Kept)
		}
		return res, fmt.Errorf("%w: %s", ErrNoTasks, why)
	}
	return res, nil
}

// plainShare is opts.PlainShare with its default (see Options).
func plainShare(opts Options) float64 {
	if opts.PlainShare == 0 && opts.Toolset != toolgen.ToolsetDomain {
		return 1
	}
	return opts.PlainShare
}

// interrupted names why a query on the source failed when it was stopped
// (cancelled, or over its work limit) rather than refused.
func interrupted(conn *sqlite3.Conn, err error) error {
	if why := dbmodel.Interrupted(conn); why != nil {
		return fmt.Errorf("synth: reading the source: %w (%v)", why, err)
	}
	return err
}

// sourceObjects returns the source's indexes, views and triggers.
func sourceObjects(conn *sqlite3.Conn) ([]emit.Object, error) {
	stmt, _, err := conn.Prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema
		WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var out []emit.Object
	for stmt.Step() {
		o := emit.Object{Type: stmt.ColumnText(0), Name: stmt.ColumnText(1), Table: stmt.ColumnText(2), SQL: stmt.ColumnText(3)}
		if o.Type == "view" {
			o.Table = ""
		}
		out = append(out, o)
	}
	return out, stmt.Err()
}

// SourceDB returns a SQLite file for src: src itself; or, for a
// directory with an env.yaml, the database of that environment built by the
// compiler; for a .wasm bundle, its database; for any other directory, its
// JSON collections imported. cleanup removes what it made.
func SourceDB(ctx context.Context, src string, copts compiler.Options) (string, func(), error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", nil, fmt.Errorf("synth: %w", err)
	}
	isEnv := false
	if fi.IsDir() {
		_, err := os.Stat(filepath.Join(src, "env.yaml"))
		isEnv = err == nil
	}
	isBundle := !fi.IsDir() && strings.HasSuffix(src, ".wasm")
	if !fi.IsDir() && !isBundle {
		return src, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "wasmenv-synth-src-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dbPath := filepath.Join(tmp, "source.sqlite")
	var db []byte
	switch {
	case isEnv:
		b, err := compiler.Build(ctx, src, copts)
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("synth: building %s for its database: %w", src, err)
		}
		db = b.DB
	case isBundle:
		b, err := envpkg.Read(src)
		if err != nil {
			cleanup()
			return "", nil, err
		}
		db = b.DB
	default:
		if err := dbmodel.ImportJSONDir(src, dbPath); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	if db != nil {
		if err := os.WriteFile(dbPath, db, 0o600); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return dbPath, cleanup, nil
}

// openImage opens a database image in memory.
func openImage(img []byte) (*sqlite3.Conn, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	if err := serdes.Deserialize(conn, "main", slices.Clone(img)); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
