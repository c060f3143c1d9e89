package tasks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/gates"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Options are the difficulty and size knobs.
type Options struct {
	N    int   // tasks to keep
	Seed int64 // sampling and episode seed
	// MaxChain is the most calls in a chain (0: 8; 1 allows only one-call
	// reads). A person's own request takes a call to find them and one
	// to list their rows before any that decides or acts: renting two
	// films is seven (me, each film and its copies, two rentals).
	MaxChain   int
	WriteShare float64 // share of write tasks among attempts, as given (0: reads only; 0 too with a read-only toolset)
	// Branching is the weight of following a reference to many rows (a
	// list) rather than to one (a parent), relative to 1 (default 1.5).
	Branching   float64
	MaxAttempts int // default 10×N
	// StateReward makes write tasks also require the final state to equal
	// the ground truth's (reward: state), which catches changes to tables
	// the "nothing else changed" check does not read.
	StateReward bool
	// Rewriter, when set, rewrites each instruction with a chat model,
	// keeping the rewrite only if it holds every value the task needs.
	Rewriter *Rewriter
	// PlainShare is the most of the kept set that may be plain (one row
	// read or changed in at most three calls: neither a refusal, nor two
	// or more rows changed, nor four or more calls): 0 means a quarter,
	// 1 no quota. Past it plain candidates are left out, and when the
	// attempts run out before N tasks that need reasoning are found the
	// set is smaller (Stats.Short says why), never filled with plain ones.
	PlainShare float64
	// MinTasks is the floor of a set that runs short: when the attempts
	// run out with fewer than MinTasks tasks that need reasoning, plain
	// ones past the PlainShare quota fill it up to MinTasks (0: half of
	// N; -1: no floor), so that an environment whose data offers little
	// to reason about stays usable. Stats.Floor and Stats.PlainFill say
	// how many were filled, and the bars are measured on what is kept.
	MinTasks int
	Progress func(kept, want int) // called after each attempt
}

// Stats describe a run.
type Stats struct {
	Attempts  int            `json:"attempts"`
	DeadEnds  int            `json:"dead_ends"` // chains that found nothing to follow or change
	Kept      int            `json:"kept"`
	Reads     int            `json:"reads"`
	Writes    int            `json:"writes"`
	ChainHist map[int]int    `json:"chain_length_histogram"` // calls per kept task
	ByKind    map[string]int `json:"by_kind"`                // kept tasks by final step
	Gates     gates.Counts   `json:"gates"`
	// Rewrites counts the instructions sent to the Rewriter, and
	// RewritesKept those whose rewrite kept every value.
	Rewrites     int `json:"rewrites,omitempty"`
	RewritesKept int `json:"rewrites_kept,omitempty"`
	// Plain counts the kept plain tasks (see Options.PlainShare) and
	// PlainSkipped the plain candidates not checked because the quota and
	// the reserve were full.
	Plain        int `json:"plain"`
	PlainSkipped int `json:"plain_skipped,omitempty"`
	// Repeats counts the candidates left out because their template
	// (shape) had been kept maxSame times already.
	Repeats int `json:"repeats,omitempty"`
	// Wanted is the N asked for; Short says why fewer were kept ("" when
	// the set is full).
	Wanted int    `json:"wanted"`
	Short  string `json:"short,omitempty"`
	// Floor is Options.MinTasks in use, and PlainFill the plain tasks
	// past the quota kept to reach it (0 when the set needed none).
	Floor     int `json:"floor,omitempty"`
	PlainFill int `json:"plain_fill,omitempty"`
}

// Synthesize samples chains, executes them in episodes of env, and keeps
// the tasks the checker passes. src is a read-only connection to the same
// data as env's initial state (used to sample values and check that a
// description picks out one row).
func Synthesize(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, g *graph.Graph, src *sqlite3.Conn, checker *gates.Checker, opts Options) ([]envpkg.Task, Stats, error) {
	if opts.MaxChain == 0 {
		opts.MaxChain = 8
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 10 * opts.N
	}
	if opts.Branching == 0 {
		opts.Branching = 1.5
	}
	if opts.PlainShare == 0 {
		opts.PlainShare = 0.25
	}
	plainCap := int(opts.PlainShare * float64(opts.N))
	switch {
	case opts.MinTasks < 0 || opts.PlainShare >= 1:
		opts.MinTasks = 0 // (no quota: nothing is left out to fill with)
	case opts.MinTasks == 0:
		opts.MinTasks = opts.N / 2
	}
	opts.MinTasks = min(opts.MinTasks, opts.N)
	// Plain candidates are checked up to the quota or the floor,
	// whichever is more: the floor may need them if the set runs short.
	plainCheck := max(plainCap, opts.MinTasks)
	writable := false
	for _, t := range spec.Tools {
		writable = writable || t.Kind.Writes()
	}
	refuseOnly := !writable && opts.WriteShare > 0 && spec.Scope != nil && len(spec.Scope.Tables) == 0
	switch {
	case refuseOnly:
		// The scope allows no change (reference data the design keeps
		// read-only): the requests for a change are the policy's tasks,
		// each a refusal (scope_refuse.go), none a change to wait for.
		opts.WriteShare = min(opts.WriteShare, refusalShare)
	case !writable:
		opts.WriteShare = 0
	}
	st := Stats{ChainHist: map[int]int{}, ByKind: map[string]int{}, Wanted: opts.N, Floor: opts.MinTasks}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed))
	// At most a twentieth of the tasks make the same change (the same
	// write tool setting the same fields) or ask the same question (the
	// same column through the same call): "Please change the date of
	// rental N" three times in a sample reads as one template.
	same := map[string]int{}
	maxSame := max(4, opts.N/20)
	// And at most an eighth of them take one coarse shape (the kind and
	// the calls it takes): a template's signature holds its condition
	// and its column, so "refuse-if-none" over ten conditions was ten
	// templates, and airline's 2-call refusals took 78 of 220 tasks.
	// Past it a task is held (isOver), to fill only a set short of its
	// floor.
	coarse := map[string]int{}
	maxCoarse := max(maxSame, opts.N/8)
	if opts.PlainShare >= 1 {
		maxCoarse = opts.N // no quota: the tasks in the order found
	}
	// What passed the gates, in the order found, in three classes: plain
	// tasks (found up to the quota), and the ones that need reasoning,
	// asked changes (refusals included) and questions. While attempts are
	// left the set waits for its share of changes (WriteShare of N):
	// questions past the rest are held, and fill it only at the end.
	type found struct {
		task  envpkg.Task
		kind  string
		v     gates.Verdict
		class int
	}
	const (
		isPlain = iota
		isChange
		isQuestion
		isOver // past its coarse shape's share: only to fill a set short of the floor
	)
	var all []found
	var n [4]int
	owners := map[string]bool{} // persona.go: owns, by table and list
	wantChanges := int(math.Ceil(opts.WriteShare * float64(opts.N)))
	if refuseOnly {
		wantChanges = 0
	}
	changed := 0 // reasoned tasks that change rows (refusals change none)
	full := func() bool {
		if opts.PlainShare >= 1 {
			return len(all) >= opts.N // no quota: the tasks in the order found
		}
		return changed >= min(wantChanges, opts.N) && n[isChange]+n[isQuestion]+min(n[isPlain], plainCap) >= opts.N
	}
	rejected := 0
	for st.Attempts < opts.MaxAttempts && !full() {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		st.Attempts++
		task, cand, kind, err := attempt(ctx, env, spec, g, src, rng, opts, len(all), owners)
		class := classOf(task, kind)
		if errors.Is(err, errDeadEnd) {
			st.DeadEnds++
		} else if err != nil {
			return nil, st, err
		} else if sig := shape(task, kind, cand); sig != "" && same[sig] >= maxSame || coarse[coarseShape(task, kind)] >= maxCoarse && n[isOver] >= opts.MinTasks {
			st.Repeats++
		} else if class == isPlain && n[isPlain] >= plainCheck {
			st.PlainSkipped++
		} else if class == isQuestion && n[isQuestion] >= opts.N {
			// Questions enough to fill the set: the attempts go on for
			// changes.
		} else {
			if opts.Rewriter != nil {
				out, ok, err := opts.Rewriter.Rewrite(ctx, task.Instruction, keepValues(task.Instruction, cand.values()), literalAnswer(task.Answer))
				if err != nil {
					return nil, st, fmt.Errorf("rewriting an instruction: %w", err)
				}
				st.Rewrites++
				if ok {
					st.RewritesKept++
					task.Instruction = out
				}
			}
			v, err := checker.Check(ctx, gates.Candidate{Task: task, InternalIDs: cand.ids, Distractors: cand.distractors, Peers: cand.peers, WrongCalls: cand.wrong})
			if err == nil {
				if sig := shape(task, kind, cand); sig != "" {
					same[sig]++
				}
				if coarse[coarseShape(task, kind)] >= maxCoarse {
					class = isOver
				}
				coarse[coarseShape(task, kind)]++
				n[class]++
				if class == isChange && changesOf(task) > 0 {
					changed++
				}
				all = append(all, found{task, kind, v, class})
			} else if !errors.Is(err, gates.ErrRejected) {
				return nil, st, err
			} else {
				rejected++
			}
		}
		if opts.Progress != nil {
			opts.Progress(min(n[isChange]+n[isQuestion]+min(n[isPlain], plainCap), opts.N), opts.N)
		}
	}
	// How many of each class are kept: every change, the questions that
	// fit, the plain ones as the quota allows, and in a short set no more
	// plain ones than their share of what is kept.
	var room [4]int
	room[isChange] = min(n[isChange], opts.N)
	room[isQuestion] = min(n[isQuestion], opts.N-room[isChange])
	reasoned := room[isChange] + room[isQuestion]
	room[isPlain] = min(n[isPlain], plainCap, opts.N-reasoned)
	if reasoned+room[isPlain] < opts.N && opts.PlainShare < 1 && reasoned > 0 {
		// (With none that needs reasoning, the plain ones are the
		// environment, up to the quota, and Short says so.)
		room[isPlain] = min(room[isPlain], int(opts.PlainShare/(1-opts.PlainShare)*float64(reasoned)))
	}
	quota := room[isPlain]
	if fill := min(n[isPlain], opts.MinTasks-reasoned, opts.N-reasoned); fill > room[isPlain] {
		// Short of the floor: plain ones fill the set up to it.
		room[isPlain] = fill
	}
	st.PlainFill = room[isPlain] - quota
	// Shapes past their share fill what the floor still lacks.
	room[isOver] = min(n[isOver], max(0, min(opts.MinTasks, opts.N)-reasoned-room[isPlain]))
	if opts.PlainShare >= 1 {
		room = n
	}
	var kept []envpkg.Task
	for _, f := range all {
		if len(kept) == opts.N {
			break
		}
		if room[f.class] == 0 {
			if f.class == isPlain {
				st.PlainSkipped++
			}
			continue
		}
		room[f.class]--
		// A task was numbered when it was found: its number is its place
		// in the kept set, so ids stay unique and in order.
		task := f.task
		task.ID = fmt.Sprintf("synth-%04d", len(kept)+1) + strings.TrimLeft(strings.TrimPrefix(task.ID, "synth-"), "0123456789")
		kept = append(kept, task)
		st.Kept++
		st.ChainHist[len(task.Calls)]++
		st.ByKind[f.kind]++
		if f.class == isPlain {
			st.Plain++
		}
		if f.v.Writes {
			st.Writes++
		} else {
			st.Reads++
		}
	}
	if len(kept) < opts.N {
		st.Short = fmt.Sprintf("%d of %d kept: the %d attempts ran out with %d tasks that need reasoning found (%d walks found nothing to ask or change, %d repeated a kept template, %d failed the gates, %d plain ones left out past the %.0f%% quota)",
			len(kept), opts.N, st.Attempts, reasoned, st.DeadEnds, st.Repeats, rejected, st.PlainSkipped, 100*opts.PlainShare)
	}
	if st.PlainFill > 0 {
		st.Short = fmt.Sprintf("%s; %d plain tasks past the quota fill it to the floor of %d", cmp.Or(st.Short, fmt.Sprintf("%d of %d kept", len(kept), opts.N)), st.PlainFill, opts.MinTasks)
	}
	st.Gates = checker.Counts()
	return kept, st, nil
}
