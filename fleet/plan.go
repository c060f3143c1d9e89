package fleet

import (
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
)

// GroupRef is one planned group: a task of a bundle. Its position in the
// plan is the job's index.
type GroupRef struct {
	Index  int    `json:"index"`
	Bundle string `json:"bundle"` // content hash
	Env    string `json:"env"`
	Task   string `json:"task,omitempty"`
	// Tasks, in an evaluation's job (Spec.Eval), are the chunk of tasks
	// the job runs instead of Task.
	Tasks []string `json:"tasks,omitempty"`
}

// label names the ref's task, or an evaluation chunk's first and last.
func (r *GroupRef) label() string {
	switch len(r.Tasks) {
	case 0:
		return r.Task
	case 1:
		return r.Tasks[0]
	}
	return r.Tasks[0] + ".." + r.Tasks[len(r.Tasks)-1]
}

// Plan lists the groups of a run in rl.Run's order: every task matching
// tasks (comma-separated globs, "" for all) of every bundle, bundles in
// the order given, tasks in bundle order.
func Plan(bundles []*envpkg.Bundle, tasks string) ([]GroupRef, error) {
	var refs []GroupRef
	for _, b := range bundles {
		for _, t := range b.Tasks {
			ok, err := rl.MatchTask(tasks, t.ID)
			if err != nil {
				return nil, errorf(CodeBadInput, err, "tasks")
			}
			if ok {
				refs = append(refs, GroupRef{Index: len(refs), Bundle: b.Hash, Env: b.Manifest.Name, Task: t.ID})
			}
		}
	}
	if len(refs) == 0 {
		return nil, errorf(CodeBadInput, nil, "no task matches %q", tasks)
	}
	return refs, nil
}

// Shard is part i of n (0 ≤ i < n) of a plan.
type Shard struct{ I, N int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, errorf(CodeBadInput, nil, "shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return Shard{I: i, N: n}, nil
}

// Of returns the shard's contiguous block of refs: shards 0..n-1 together
// are refs in order, each ref in exactly one, sizes differing by at most
// one. Concatenating the shards' outputs gives the whole run's output.
func (s Shard) Of(refs []GroupRef) []GroupRef {
	if s.N < 1 {
		return refs
	}
	lo, hi := s.I*len(refs)/s.N, (s.I+1)*len(refs)/s.N
	return refs[lo:hi]
}
