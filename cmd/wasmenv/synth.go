package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

func init() { register(synthCmd) }

func synthCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "synth", Short: "Synthesize environments and tasks"}
	cmd.AddCommand(synthFromDBCmd(), synthGraphCmd(), synthLLMCmd(), synthReportCmd())
	return cmd
}

func synthFromDBCmd() *cobra.Command {
	var opts synth.Options
	var writeShare float64
	var df designFlags     // synth_design.go
	var fl synthFleetFlags // synth_fleet.go
	var rf retainFlags     // synth_retain.go
	cmd := &cobra.Command{
		Use:   "from-db DB.sqlite|BUNDLE.wasm|ENVDIR|JSONDIR -o OUTDIR [--bundle FILE]",
		Short: "Turn a SQLite database (or a directory of JSON collections) into an environment with tasks",
		Long: "Turn a SQLite database into an environment with generated tools and tasks verified by execution.\n" +
			"The source may also be a bundle or an environment source directory (their database is used),\n" +
			"or a directory of JSON/JSONL collections (imported into tables first).\n" +
			"Several SQLite databases (or --nats) make a batch: -o is then a directory that gets one\n" +
			"environment directory per database, and --nats runs one job per database on the workers\n" +
			"(docs/SCALING.md).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			gate, err := rf.config()
			if err != nil {
				return err
			}
			if len(args) > 1 || fl.nats != "" {
				if gate != nil {
					return fmt.Errorf("--retain-k runs on one database at a time, not on a batch or the fleet")
				}
				return runSynthBatch(cmd, args, opts, writeShare, df.model, &fl)
			}
			opts.Log = os.Stderr
			opts.WriteShare = &writeShare // 0 means no write tasks, as typed
			if opts.Design, err = df.stage(); err != nil {
				return err
			}
			res, err := synth.FromDB(cmd.Context(), args[0], opts)
			if res != nil && res.Model != nil && res.Spec != nil && res.Graph != nil {
				res.Summary.Print(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if gate != nil {
				if err := retainFromDB(cmd.Context(), gate, opts.Out, opts.Bundle, res.Bundle, opts.Runtime, cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s", opts.Out)
			if opts.Bundle != "" {
				fmt.Fprintf(cmd.OutOrStdout(), " and %s", opts.Bundle)
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "output", "o", "", "environment source directory to write (replaced if it holds an environment)")
	f.StringVar(&opts.Bundle, "bundle", "", "also write the compiled bundle here")
	f.StringVar(&opts.Name, "name", "", "environment name (default: from the file name)")
	f.IntVar(&opts.Tasks, "tasks", 100, "how many tasks to keep (a count; rollout's and eval's --tasks take task-id globs)")
	f.Int64Var(&opts.Seed, "seed", 0, "sampling seed")
	f.IntVar(&opts.MaxChain, "max-chain", 0, "most tool calls per task (0: 8)")
	f.Float64Var(&writeShare, "write-share", 0.5, "share of write tasks (0: reads only)")
	f.BoolVar(&opts.ReadOnly, "read-only", false, "generate only read tools (no create, update, delete)")
	f.StringVar(&opts.Toolset, "toolset", toolgen.ToolsetDomain, "domain: the domain actions and the lookups a person's question needs, at most 40 tools and 24 KB of schemas, and a policy as the system message; crud: every table's get, find, list, follow, create, update and delete")
	rf.add(f)
	df.add(f)
	f.IntVar(&opts.MinTasks, "min-tasks", 0, "floor of a short set: plain tasks past the quota fill it up to this many when too few that need reasoning are found (0: half of --tasks; -1: none)")
	f.BoolVar(&opts.StateReward, "state-reward", false, "write tasks also require the final state to equal the ground truth's")
	f.IntVar(&opts.MaxRows, "max-rows", 0, "most rows per table in the seed; larger tables are sampled with what their rows refer to (default 5000)")
	f.Int64Var(&opts.WorkLimit, "work-limit", dbmodel.DefaultWorkLimit, "most work one query on the source may do, in SQLite progress checks (~1000 VM steps each); a query past it (a view that never ends) fails the run")
	fl.add(cmd)
	cmd.MarkFlagRequired("output")
	return cmd
}

func synthGraphCmd() *cobra.Command {
	var dot, weak, readOnly bool
	cmd := &cobra.Command{
		Use:   "graph DB.sqlite|BUNDLE.wasm|ENVDIR|JSONDIR [--dot]",
		Short: "Print the tool dependency graph of the tools synth would generate (JSON, or DOT)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, cleanup, err := synth.SourceDB(cmd.Context(), args[0], compiler.Options{})
			if err != nil {
				return err
			}
			defer cleanup()
			m, err := dbmodel.Open(db, dbmodel.Options{Context: cmd.Context()})
			if err != nil {
				return err
			}
			spec, err := toolgen.Generate(m, toolgen.Options{ReadOnly: readOnly})
			if err != nil {
				return err
			}
			g := graph.Build(spec)
			if dot {
				fmt.Fprint(cmd.OutOrStdout(), g.DOT(weak))
				return nil
			}
			b, err := g.JSON()
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}
	cmd.Flags().BoolVar(&dot, "dot", false, "print Graphviz DOT instead of JSON")
	cmd.Flags().BoolVar(&weak, "weak", false, "with --dot: include weak (name-only) edges")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "the graph of the read-only toolset")
	return cmd
}
