package taubench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// EndToEnd is `wasmenv replay` of the reference episodes timed as a process
// of its own (issue 35's "end to end"): the command a user runs, JSONL in,
// JSONL out, each episode from a reset, its diff, hash and score. Three
// runs: an empty input (process start and bundle load), the episodes once
// (every task's ground-truth hash is computed on its first score) and
// Copies times; the per-episode figures are the slope between the last two.
type EndToEnd struct {
	Exe      string `json:"exe"`
	Episodes int    `json:"episodes"` // reference episodes per copy
	Copies   int    `json:"copies"`
	// Wall and CPU (user + system of the process) nanoseconds of the three
	// runs: [empty, one copy, Copies copies].
	WallNS [3]int64 `json:"wall_ns"`
	CPUNS  [3]int64 `json:"cpu_ns"`
	// PerEpisode*: (run Copies − run one) / ((Copies − 1) × Episodes).
	PerEpisodeWallNS int64 `json:"per_episode_wall_ns"`
	PerEpisodeCPUNS  int64 `json:"per_episode_cpu_ns"`
	// Rewards counts the output lines of the largest run with reward 1 and
	// no error; all of them must be (Lines).
	Rewards int `json:"rewards"`
	Lines   int `json:"lines"`
}

// RunEndToEnd times exe's `replay` of eps on the bundle file, as EndToEnd
// says. copies must be 2 or more.
func RunEndToEnd(ctx context.Context, exe, bundle string, eps []RefEpisode, copies int) (*EndToEnd, error) {
	if copies < 2 {
		return nil, fmt.Errorf("taubench: end to end needs 2 or more copies, not %d", copies)
	}
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	for _, ep := range eps {
		line := struct {
			ID     string  `json:"id"`
			Calls  []Call  `json:"calls"`
			Task   string  `json:"task"`
			Answer *string `json:"answer,omitempty"`
		}{ep.ID, ep.Calls, ep.ID, ep.Answer()}
		if err := enc.Encode(line); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "taubench-replay")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &EndToEnd{Exe: exe, Episodes: len(eps), Copies: copies}
	for i, n := range []int{0, 1, copies} {
		in := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i))
		if err := os.WriteFile(in, bytes.Repeat(one.Bytes(), n), 0o644); err != nil {
			return nil, err
		}
		var out, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, exe, "replay", bundle, "--input", in)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		t0 := time.Now()
		err := cmd.Run()
		r.WallNS[i] = int64(time.Since(t0))
		if err != nil {
			return nil, fmt.Errorf("taubench: %s replay of %d copies: %v\n%s", exe, n, err, stderr.Bytes())
		}
		st := cmd.ProcessState
		r.CPUNS[i] = int64(st.UserTime() + st.SystemTime())
		if n == copies {
			if r.Rewards, r.Lines, err = countRewards(out.Bytes()); err != nil {
				return nil, err
			}
		}
	}
	per := int64((copies - 1) * len(eps))
	r.PerEpisodeWallNS = (r.WallNS[2] - r.WallNS[1]) / max(per, 1)
	r.PerEpisodeCPUNS = (r.CPUNS[2] - r.CPUNS[1]) / max(per, 1)
	if r.Lines != copies*len(eps) || r.Rewards != r.Lines {
		return r, fmt.Errorf("taubench: replay wrote %d lines, %d with reward 1, want %d", r.Lines, r.Rewards, copies*len(eps))
	}
	return r, nil
}

// countRewards counts replay's output lines and those scored 1 without an
// error.
func countRewards(out []byte) (rewards, lines int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Score *struct {
				Reward float64 `json:"reward"`
			} `json:"score"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return rewards, lines, fmt.Errorf("taubench: replay output line %d: %v", lines+1, err)
		}
		lines++
		if l.Error == "" && l.Score != nil && l.Score.Reward == 1 {
			rewards++
		}
	}
	return rewards, lines, sc.Err()
}
