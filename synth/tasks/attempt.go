package tasks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// One attempt of the driver: a chain sampled, executed and turned into a
// task (or a reason it is not one).

// attempt samples and executes one chain and turns it into a task.
func attempt(ctx context.Context, env *runtime.Env, spec *toolgen.Spec, g *graph.Graph, src *sqlite3.Conn, rng *rand.Rand, opts Options, n int, owners map[string]bool) (envpkg.Task, *chain, string, error) {
	ep, err := env.NewEpisode("", opts.Seed)
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	defer ep.Close()
	c := &chain{}
	w := &walker{spec: spec, g: g, src: src, ep: ep, rng: rng, ctx: ctx, chain: c, anchored: rng.Float64() < anchorShare, owners: owners}
	if gls := w.groupLists(); len(gls) > 0 && rng.IntN(3) == 0 {
		// A figure over the rows of a group the user names (grouped.go):
		// where no one owns rows, the reasoning a question takes.
		t, kind, err := w.grouped(c, gls)
		if err == nil {
			return w.finish(c, c.entities[len(c.entities)-1], t, kind, opts, n)
		}
		if !errors.Is(err, errDeadEnd) {
			return envpkg.Task{}, nil, "", err
		}
		*c = chain{}
	}
	cur, err := w.entry(c)
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	write := rng.Float64() < opts.WriteShare
	// A person's own request is composed over their rows (persona.go):
	// every change, and most questions. Otherwise half the changes, and
	// a third of the questions, are composed over the rows of the row
	// found (compose.go, tally.go). Where it has none to choose from, the
	// walk goes on as below.
	var composer func(*chain, *entity) (envpkg.Task, string, error)
	switch {
	case write && (w.anchored && (w.spec.Scope == nil || rng.IntN(3) > 0) || w.composeFirst || !w.anchored && rng.IntN(2) == 0):
		// (Where a scope names the person, a third of their own changes
		// walk from them to one row instead: a change by no one is no
		// task there, so these are the walks that reach an action on
		// one row of theirs, an order line added.)
		composer = w.compose
	case !write && ((w.anchored || w.composeFirst) && rng.IntN(4) > 0 || rng.IntN(3) == 0):
		composer = w.tally
	}
	if composer != nil {
		// A few entries are tried: most tables have no rows of their
		// own to choose among.
		for try := 0; ; try++ {
			t, kind, err := composer(c, cur)
			switch {
			case err == nil:
				return w.finish(c, c.entities[len(c.entities)-1], t, kind, opts, n)
			case !errors.Is(err, errDeadEnd) || w.wroteSince(c, 0):
				return envpkg.Task{}, nil, "", err
			}
			*c = chain{}
			next, err := w.entry(c)
			if err != nil {
				return envpkg.Task{}, nil, "", err
			}
			if cur = next; try == 2 {
				break
			}
		}
	}
	// Hops: the final step takes one call, the entry one; the rest follow
	// references. Longer walks are likelier, up to MaxChain.
	room := opts.MaxChain - 2 // a read's count question also takes a call
	nHops := 0
	if room > 0 {
		// Few hops, as people ask (the judges' 4s and 5s are one-hop
		// requests by a name people know).
		weights := []int{1, 2, 3, 2}
		nHops = pick(rng, weights[:min(room, len(weights)-1)+1])
		if !write && !c.me && rng.IntN(3) == 0 {
			// A question about the rows of the row named ("How many
			// albums does the artist U2 have?"): no hop before it.
			nHops, c.aggregate = 0, true
		}
	}
	if write && nHops == 0 && w.hasActions() && len(w.actionsOn(cur)) == 0 {
		nHops = 1 + rng.IntN(2) // walk toward a row an action is for
	}
	for range nHops {
		calls, ents, ids := len(c.calls), len(c.entities), len(c.ids)
		next, err := w.hop(c, cur)
		if errors.Is(err, errDeadEnd) {
			break
		}
		if err != nil {
			return envpkg.Task{}, nil, "", err
		}
		if hops(next.desc) > maxHops || !sensibleHop(cur, next, ents) {
			// A chain of relations no one would say: stop at the row
			// before (the hop was a read; nothing to undo in the episode).
			c.calls, c.entities, c.ids = c.calls[:calls], c.entities[:ents], c.ids[:ids]
			break
		}
		cur = next
		if write && len(w.actionsOn(cur)) > 0 && rng.IntN(3) > 0 {
			// A row the domain has an action for: what the user wants
			// done is that action (the rest of the walk would pass it by).
			break
		}
	}
	if ctx := w.splitContext(cur); ctx != "" {
		c.intro = strings.TrimSpace(c.intro + " " + ctx)
	}
	var t envpkg.Task
	var kind string
	if write {
		t, kind, err = w.finishWrite(c, cur)
	} else {
		t, kind, err = w.finishRead(c, cur)
	}
	if err != nil {
		return envpkg.Task{}, nil, "", err
	}
	return w.finish(c, cur, t, kind, opts, n)
}

// finish checks the chain's length and completes the task: its id, its
// polite wording, the persona, the calls and the difficulty.
func (w *walker) finish(c *chain, cur *entity, t envpkg.Task, kind string, opts Options, n int) (envpkg.Task, *chain, string, error) {
	rng := w.rng
	if len(c.calls) > opts.MaxChain {
		return envpkg.Task{}, nil, "", fmt.Errorf("%w: %d calls, more than %d", errDeadEnd, len(c.calls), opts.MaxChain)
	}
	if why := outOfScope(w.spec, envpkg.Task{Calls: c.calls}); why != "" {
		return envpkg.Task{}, nil, "", fmt.Errorf("%w: %s", errDeadEnd, why)
	}
	if why := w.speaksAsUser(c); why != "" {
		// A question or a refusal by no one: one of the people served
		// asks it. A change by no one, or a user the rules do not serve,
		// is no task (whose rows would it change?).
		if userOf(c) != nil || slices.ContainsFunc(t.Checks, func(ch envpkg.Check) bool { return !ch.Guard }) {
			return envpkg.Task{}, nil, "", fmt.Errorf("%w: %s", errDeadEnd, why)
		}
		if err := w.identifyUser(c); err != nil {
			return envpkg.Task{}, nil, "", err
		}
		if len(c.calls) > opts.MaxChain {
			return envpkg.Task{}, nil, "", fmt.Errorf("%w: %d calls, more than %d", errDeadEnd, len(c.calls), opts.MaxChain)
		}
	}
	if why, err := w.othersRows(c, t); err != nil || why != "" {
		return envpkg.Task{}, nil, "", cmp.Or(err, fmt.Errorf("%w: %s", errDeadEnd, why))
	}
	if len(t.Checks) == 0 && t.Answer != nil {
		// A question changes nothing: a stray write while looking it up
		// fails the task (the guard gates the answer's reward, so doing
		// nothing still earns nothing).
		t.Checks = keepChecks(w.spec.Model)
	}
	if opts.StateReward && len(t.Checks) > 0 && !t.Checks[0].Guard {
		t.Reward = envpkg.RewardState
	}
	t.ID = fmt.Sprintf("synth-%04d-%s-%s", n+1, kind, emit.EnvName(cur.table.Singular()))
	t.Instruction = polite(rng, c.intro, tidy(t.Instruction))
	if c.said != "" && t.Answer != nil && t.Answer.Match != "number" && wordIn(c.said, t.Instruction) {
		// The question names its own answer ("Which of the products of
		// the supplier of "Pâté chinois" ..." answered "Pâté chinois").
		return envpkg.Task{}, nil, "", fmt.Errorf("%w: the instruction states the answer", errDeadEnd)
	}
	t.Persona = c.persona
	t.Calls = c.calls
	t.Answer = withRecord(t.Answer, c, cur)
	if t.Checks == nil {
		t.Checks = []envpkg.Check{}
	}
	t.Difficulty = difficulty(c, &t, kind)
	if t.Answer != nil && c.answerOf != nil {
		c.peers = w.peers(c.answerOf, c.answerCol, c.said, 3)
	}
	return t, c, kind, nil
}
