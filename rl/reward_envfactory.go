package rl

import (
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/canonjson"
)

// EnvFactory is EnvFactory's shaped reward:
//
//	max(0, α·trajectory_match + (1−α)·state_match − length_penalty − format_penalty)
//
// trajectory_match is the longest common subsequence of the agent's calls
// and the task's ground-truth calls (same tool, same arguments as JSON
// values) over the longer of the two; state_match is the fraction of checks
// that pass; length_penalty is Length per call beyond the ground truth's
// count; format_penalty is Format per format error.
type EnvFactory struct {
	Alpha  float64 // weight of trajectory match; 0.5 by default in the CLI
	Length float64 // penalty per extra call
	Format float64 // penalty per format error
}

func (EnvFactory) Name() string { return "envfactory" }

func (f EnvFactory) validate() error {
	if f.Alpha < 0 || f.Alpha > 1 {
		return fmt.Errorf("envfactory alpha %g: want 0..1", f.Alpha)
	}
	if f.Length < 0 || f.Format < 0 {
		return fmt.Errorf("envfactory penalties must not be negative")
	}
	return nil
}

func (f EnvFactory) Score(in RewardInput) (float64, map[string]float64) {
	traj := trajectoryMatch(in.Calls, in.Task.Calls)
	state := fraction(in.Score)
	extra := max(0, len(in.Calls)-len(in.Task.Calls))
	lp := f.Length * float64(extra)
	fp := f.Format * float64(in.FormatErrors)
	r := max(0, f.Alpha*traj+(1-f.Alpha)*state-lp-fp)
	return r, map[string]float64{
		"trajectory_match": traj, "state_match": state,
		"length_penalty": lp, "format_penalty": fp,
	}
}

// trajectoryMatch is LCS(got, want) / max(len(got), len(want)); 1 when both
// are empty.
func trajectoryMatch(got, want []envpkg.Call) float64 {
	n := max(len(got), len(want))
	if n == 0 {
		return 1
	}
	prev := make([]int, len(want)+1)
	cur := make([]int, len(want)+1)
	for i := range got {
		for j := range want {
			if sameCall(got[i], want[j]) {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(want)]) / float64(n)
}

func sameCall(a, b envpkg.Call) bool {
	if a.Name != b.Name {
		return false
	}
	return canonjson.Arguments(a.Arguments) == canonjson.Arguments(b.Arguments) // null means absent
}
