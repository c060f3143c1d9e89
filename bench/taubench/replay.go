package taubench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/runtime"
)

// Verify is a side's check against the reference episodes.
type Verify struct {
	Episodes       int      `json:"episodes"`
	Outputs        int      `json:"outputs"`
	OutputsMatched int      `json:"outputs_matched"`
	DiffsMatched   int      `json:"diffs_matched"`
	RewardsOK      int      `json:"rewards_ok"`
	Mismatches     []string `json:"mismatches"`
	OK             bool     `json:"ok"`
}

func (v *Verify) String() string {
	return fmt.Sprintf("%d/%d outputs, %d/%d state diffs, %d/%d rewards",
		v.OutputsMatched, v.Outputs, v.DiffsMatched, v.Episodes, v.RewardsOK, v.Episodes)
}

// Bench holds one side's timings. Reset..Reward are filled by both sides;
// NewEpisode and Diff only by wasmenv.
type Bench struct {
	Reset     Summary `json:"reset"`
	Call      Summary `json:"call"`
	CallRead  Summary `json:"call_read"`
	CallWrite Summary `json:"call_write"`
	// TotalNS is the wall time of one pass of reset + calls over all
	// episodes, one entry per repeat.
	TotalNS []int64 `json:"total_ns"`
	// Hash: τ-bench's get_data_hash (whole data) / wasmenv's StateHash
	// (diff + canonical hash of the diff).
	Hash Summary `json:"hash"`
	// Reward: τ-bench's calculate_reward (hash, reload, replay the ground
	// truth, hash) / wasmenv's Episode.Score (StateHash + cached
	// ground-truth hash).
	Reward Summary `json:"reward"`
	// Tools: call times per tool.
	Tools      map[string]Summary `json:"tools"`
	NewEpisode *Summary           `json:"new_episode,omitempty"`
	Diff       *Summary           `json:"diff,omitempty"`
	// DiffAndHash: Episode.DiffAndHash after the calls, what `wasmenv
	// replay` reports per episode (one diff, hashed).
	DiffAndHash *Summary `json:"diff_and_hash,omitempty"`
}

// GoResult is the wasmenv side of a run.
type GoResult struct {
	LoadNS int64  `json:"load_ns"` // runtime.Load / LoadBundle, once
	Verify Verify `json:"verify"`
	Bench  *Bench `json:"bench,omitempty"`
}

// Replayer replays reference episodes on a loaded environment. It keeps one
// episode per reference episode (task id = episode id), created by Verify
// and reused, after Reset, by the timed passes.
type Replayer struct {
	Env *runtime.Env
	Eps []RefEpisode

	episodes []*runtime.Episode
	newEp    []int64
}

// Close closes the replayer's episodes (not the environment).
func (r *Replayer) Close() {
	for _, ep := range r.episodes {
		if ep != nil {
			ep.Close()
		}
	}
	r.episodes = nil
}

// Verify creates each episode (timed), replays its calls and checks the
// outputs, the final state diff and the reward against the reference.
func (r *Replayer) Verify(ctx context.Context) (Verify, error) {
	r.Close()
	v := Verify{Episodes: len(r.Eps), Mismatches: []string{}}
	r.episodes = make([]*runtime.Episode, len(r.Eps))
	r.newEp = r.newEp[:0]
	for i, ref := range r.Eps {
		t0 := time.Now()
		ep, err := r.Env.NewEpisode(ref.ID, 0)
		r.newEp = append(r.newEp, int64(time.Since(t0)))
		if err != nil {
			return v, fmt.Errorf("episode %s: %w", ref.ID, err)
		}
		r.episodes[i] = ep
		for j, c := range ref.Calls {
			res, err := ep.Call(ctx, c.Name, c.Arguments)
			if err != nil {
				return v, fmt.Errorf("episode %s call %d: %w", ref.ID, j, err)
			}
			v.Outputs++
			if SameOutput(res.Content, ref.Output(j)) {
				v.OutputsMatched++
			} else {
				v.Mismatches = append(v.Mismatches, fmt.Sprintf("%s call %d %s: got %.200q", ref.ID, j, c.Name, res.Content))
			}
		}
		d, err := ep.Diff()
		if err != nil {
			return v, fmt.Errorf("episode %s: diff: %w", ref.ID, err)
		}
		if m := DiffMismatches(StateDiff(d), ref.StateDiff); len(m) == 0 {
			v.DiffsMatched++
		} else {
			v.Mismatches = append(v.Mismatches, fmt.Sprintf("%s: state diff: %v", ref.ID, m))
		}
		s, err := ep.Score(ctx, ref.Answer())
		if err != nil {
			return v, fmt.Errorf("episode %s: score: %w", ref.ID, err)
		}
		if s.Reward == 1 {
			v.RewardsOK++
		} else {
			v.Mismatches = append(v.Mismatches, fmt.Sprintf("%s: reward %v", ref.ID, s.Reward))
		}
	}
	v.OK = v.OutputsMatched == v.Outputs && v.DiffsMatched == v.Episodes && v.RewardsOK == v.Episodes
	return v, nil
}

// Bench times repeat passes of reset + calls over all episodes, then
// stateRepeat passes timing Diff, StateHash and Score after each episode's
// calls. Verify must have run.
func (r *Replayer) Bench(ctx context.Context, repeat, stateRepeat int) (*Bench, error) {
	if len(r.episodes) != len(r.Eps) {
		return nil, fmt.Errorf("taubench: Bench before Verify")
	}
	var resets, calls, reads, writes, totals []int64
	perTool := map[string][]int64{}
	for range repeat {
		start := time.Now()
		for i, ref := range r.Eps {
			ep := r.episodes[i]
			t0 := time.Now()
			if err := ep.Reset(); err != nil {
				return nil, err
			}
			resets = append(resets, int64(time.Since(t0)))
			for _, c := range ref.Calls {
				t0 := time.Now()
				if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
					return nil, err
				}
				dt := int64(time.Since(t0))
				calls = append(calls, dt)
				perTool[c.Name] = append(perTool[c.Name], dt)
				if WriteTools[c.Name] {
					writes = append(writes, dt)
				} else {
					reads = append(reads, dt)
				}
			}
		}
		totals = append(totals, int64(time.Since(start)))
	}
	var diffs, hashes, rewards, both []int64
	for range stateRepeat {
		for i, ref := range r.Eps {
			ep := r.episodes[i]
			if err := ep.Reset(); err != nil {
				return nil, err
			}
			for _, c := range ref.Calls {
				if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
					return nil, err
				}
			}
			tb := time.Now()
			if _, _, err := ep.DiffAndHash(); err != nil {
				return nil, err
			}
			both = append(both, int64(time.Since(tb)))
			t0 := time.Now()
			if _, err := ep.Diff(); err != nil {
				return nil, err
			}
			t1 := time.Now()
			if _, err := ep.StateHash(); err != nil {
				return nil, err
			}
			t2 := time.Now()
			s, err := ep.Score(ctx, ref.Answer())
			if err != nil {
				return nil, err
			}
			t3 := time.Now()
			if s.Reward != 1 {
				return nil, fmt.Errorf("episode %s: reward %v after a timed replay", ref.ID, s.Reward)
			}
			diffs = append(diffs, int64(t1.Sub(t0)))
			hashes = append(hashes, int64(t2.Sub(t1)))
			rewards = append(rewards, int64(t3.Sub(t2)))
		}
	}
	newEp, diff, diffHash := Summarize(r.newEp), Summarize(diffs), Summarize(both)
	tools := map[string]Summary{}
	for name, s := range perTool {
		tools[name] = Summarize(s)
	}
	return &Bench{
		Reset: Summarize(resets), Call: Summarize(calls),
		CallRead: Summarize(reads), CallWrite: Summarize(writes),
		TotalNS: totals, Hash: Summarize(hashes), Reward: Summarize(rewards),
		Tools: tools, NewEpisode: &newEp, Diff: &diff, DiffAndHash: &diffHash,
	}, nil
}

// RunGo replays eps on env: Verify, then Bench when the verification passed.
// loadNS is the time LoadEnv took to load the bundle.
func RunGo(ctx context.Context, env *runtime.Env, loadNS int64, eps []RefEpisode, repeat, stateRepeat int) (*GoResult, error) {
	r := &Replayer{Env: env, Eps: eps}
	defer r.Close()
	res := &GoResult{LoadNS: loadNS}
	v, err := r.Verify(ctx)
	res.Verify = v
	if err != nil || !v.OK {
		return res, err
	}
	res.Bench, err = r.Bench(ctx, repeat, stateRepeat)
	return res, err
}

// PyResult is baseline.py's JSON output.
type PyResult struct {
	Python         string `json:"python"`
	Implementation string `json:"implementation"`
	DataBytes      int64  `json:"data_bytes"`
	Verify         Verify `json:"verify"`
	Bench          *Bench `json:"bench,omitempty"`
}

// ParsePyResult decodes baseline.py's stdout.
func ParsePyResult(out []byte) (*PyResult, error) {
	var p PyResult
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("baseline.py output: %v", err)
	}
	return &p, nil
}
