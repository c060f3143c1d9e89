package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/runtime"
)

// replayIn is one input line. Unknown fields are ignored, so reference
// files carrying expected outputs can be replayed as they are.
type replayIn struct {
	ID     string        `json:"id"`
	Calls  []envpkg.Call `json:"calls"`
	Seed   int64         `json:"seed"`
	Task   string        `json:"task"`
	Answer *string       `json:"answer"`
}

type replayOut struct {
	ID        string         `json:"id"`
	Outputs   []string       `json:"outputs"`
	IsError   []bool         `json:"is_error"`
	StateDiff runtime.Diff   `json:"state_diff"`
	StateHash string         `json:"state_hash"`
	Score     *runtime.Score `json:"score,omitempty"`
	Error     string         `json:"error,omitempty"`
}

func init() { register(replayCmd) }

func replayCmd() *cobra.Command {
	var input, output string
	cmd := &cobra.Command{
		Use:   "replay FILE --input episodes.jsonl [--output results.jsonl]",
		Short: "Replay call sequences, each from a fresh reset, and report outputs, state diffs and scores",
		Long: "Replay call sequences, each from a fresh reset, and report outputs, state diffs and scores.\n\n" +
			"Input lines: {\"id\", \"calls\": [{\"name\", \"arguments\"}], \"seed\"?, \"task\"?, \"answer\"?}.\n" +
			"Output lines: {\"id\", \"outputs\", \"is_error\", \"state_diff\", \"state_hash\", \"score\"?}.\n" +
			"A bad line gets an output line with \"error\" and the others still run; the exit status is then 1.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if input == "" {
				return fmt.Errorf("--input is required (use - for standard input)")
			}
			in := io.Reader(os.Stdin)
			if input != "-" {
				f, err := os.Open(input)
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			env, err := runtime.Load(cmd.Context(), args[0], runtime.Options{})
			if err != nil {
				return err
			}
			defer env.Close()
			var buf bytes.Buffer
			w := io.Writer(cmd.OutOrStdout())
			if output != "" {
				w = &buf // written atomically at the end
			}
			failed, total, err := replay(cmd.Context(), env, in, w)
			if err != nil {
				return err
			}
			if output != "" {
				if err := atomicfile.WriteFile(output, buf.Bytes()); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%d episodes replayed into %s\n", total, filepath.Clean(output))
			}
			if failed > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "wasmenv: %d of %d input lines failed (see \"error\" in their output lines)\n", failed, total)
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "JSONL file of episodes (- for standard input)")
	cmd.Flags().StringVar(&output, "output", "", "write results here (default: standard output)")
	return cmd
}

// replay runs every input line; it returns how many lines failed.
func replay(ctx context.Context, env *runtime.Env, in io.Reader, w io.Writer) (failed, total int, err error) {
	episodes := map[string]*runtime.Episode{} // one per task, reset between lines
	defer func() {
		for _, ep := range episodes {
			ep.Close()
		}
	}()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		total++
		out, ep, lineErr := replayLine(ctx, env, episodes, sc.Bytes())
		if ep != nil {
			// Its next line resets it: give its connection back on the
			// initial state now, so that only the episode of the line in
			// hand holds one and none parks between its own steps (the
			// first Options.MaxConns episodes would keep theirs idle).
			ep.Reset()
			ep.Release()
		}
		if lineErr != nil {
			failed++
			out.Error = fmt.Sprintf("line %d: %v", line, lineErr)
		}
		if err := enc.Encode(out); err != nil {
			return failed, total, err
		}
		if ctx.Err() != nil {
			return failed, total, ctx.Err()
		}
	}
	return failed, total, sc.Err()
}

// replayLine replays one input line on its task's episode, which it
// returns (nil when the line named none it could open).
func replayLine(ctx context.Context, env *runtime.Env, episodes map[string]*runtime.Episode, line []byte) (replayOut, *runtime.Episode, error) {
	var in replayIn
	if err := json.Unmarshal(line, &in); err != nil {
		return replayOut{Outputs: []string{}, IsError: []bool{}}, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	out := replayOut{ID: in.ID, Outputs: []string{}, IsError: []bool{}}
	ep := episodes[in.Task]
	if ep == nil {
		var err error
		if ep, err = env.NewEpisode(in.Task, in.Seed); err != nil {
			return out, nil, err
		}
		episodes[in.Task] = ep
	} else if err := ep.ResetSeed(in.Seed); err != nil {
		return out, ep, err
	}
	out, err := replaySteps(ctx, ep, &in, out)
	return out, ep, err
}

// replaySteps runs a line's calls on its episode, then its diff, hash and
// score.
func replaySteps(ctx context.Context, ep *runtime.Episode, in *replayIn, out replayOut) (replayOut, error) {
	for _, c := range in.Calls {
		r, err := ep.Call(ctx, c.Name, envpkg.CallArguments(c.Arguments))
		if err != nil {
			return out, err
		}
		out.Outputs = append(out.Outputs, r.Content)
		out.IsError = append(out.IsError, r.IsError)
	}
	var err error
	if out.StateDiff, out.StateHash, err = ep.DiffAndHash(); err != nil {
		return out, err
	}
	if in.Task != "" {
		s, err := ep.Score(ctx, in.Answer)
		if err != nil {
			return out, err
		}
		out.Score = &s
	}
	return out, nil
}
