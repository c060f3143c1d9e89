package arena

import (
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Target picks n tasks from candidates (fresh tasks synthesized for the
// environment), preferring those that exercise what the guidelines name:
// the missed tools (weighted by rank), the failing chain lengths, and
// shapes that train against the causes seen. Ties break by task id, so the
// pick is a function of its inputs.
func Target(cands []envpkg.Task, g Guidelines, n int) []envpkg.Task {
	n = max(n, 0)
	type scored struct {
		t     envpkg.Task
		score float64
	}
	rank := map[string]int{}
	for i, t := range g.Tools {
		rank[t] = i
	}
	lens := map[int]bool{}
	for _, l := range g.ChainLengths {
		lens[l] = true
	}
	var s []scored
	for _, t := range cands {
		s = append(s, scored{t, taskScore(t, rank, lens, g.Causes)})
	}
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].score != s[j].score {
			return s[i].score > s[j].score
		}
		return s[i].t.ID < s[j].t.ID
	})
	out := make([]envpkg.Task, 0, min(n, len(s)))
	for _, x := range s[:min(n, len(s))] {
		out = append(out, x.t)
	}
	return out
}

func taskScore(t envpkg.Task, rank map[string]int, lens map[int]bool, causes []Cause) float64 {
	score := 0.0
	seen := map[string]bool{}
	for _, c := range t.Calls {
		if r, ok := rank[c.Name]; ok && !seen[c.Name] {
			score += 1 / float64(r+1)
			seen[c.Name] = true
		}
	}
	if lens[len(t.Calls)] {
		score += 0.5
	}
	for i, c := range causes {
		w := 0.5 / float64(i+1)
		switch c {
		case CauseMissingLookup, CausePrematureFinish, CauseStepLimit:
			if len(t.Calls) >= 2 {
				score += w
			}
		case CauseWrongAnswer:
			if t.Answer != nil {
				score += w
			}
		case CauseRuleViolation, CauseExtraChange:
			if t.Answer == nil && len(t.Checks) > 0 {
				score += w
			}
		}
	}
	return score
}

// Untargeted picks n tasks uniformly (seeded): the control that a targeted
// round is compared with, same environments, same count.
func Untargeted(cands []envpkg.Task, n int, seed int64) []envpkg.Task {
	n = max(n, 0)
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x61726e61))
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	idx = idx[:min(n, len(idx))]
	slices.Sort(idx)
	out := make([]envpkg.Task, 0, len(idx))
	for _, i := range idx {
		out = append(out, cands[i])
	}
	return out
}

// tasksUsing counts how many of tasks call one of the tools.
func tasksUsing(tasks []envpkg.Task, tools []string) int {
	n := 0
	for _, t := range tasks {
		for _, c := range t.Calls {
			if slices.Contains(tools, c.Name) {
				n++
				break
			}
		}
	}
	return n
}
