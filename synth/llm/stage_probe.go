package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/canonjson"
	"github.com/wasmenv/wasmenv/runtime"
)

type probeCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Expect    string          `json:"expect"`
}

type probeOut struct {
	Calls []probeCall `json:"calls"`
}

type probeResult struct {
	Index   int             `json:"index"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"arguments"`
	Expect  string          `json:"expect"`
	IsError bool            `json:"is_error"`
	Fault   string          `json:"-"` // an environment fault: fails whatever the checker says
	Result  string          `json:"result"`
}

type checkerOut struct {
	Verdicts []struct {
		Index  int    `json:"index"`
		Pass   bool   `json:"pass"`
		Reason string `json:"reason"`
	} `json:"verdicts"`
}

// runProbe builds the final state (the code and the kept tasks) once, and
// assesses it with runProbes; the bundle it built is the one written.
func (r *envRun) runProbe(ctx context.Context) error {
	env, b, probs, err := r.build(ctx, r.code, r.final)
	if err != nil {
		return err
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: the final build fails: %s", errQuality, strings.Join(probs, "; "))
	}
	defer env.Close()
	rate, failures, err := r.runProbes(ctx, env, b.Manifest.Tools)
	if err != nil {
		return err
	}
	r.rep.PassRate = rate
	r.rep.Tools, r.rep.Tasks, r.rep.Tests = len(b.Manifest.Tools), len(r.final), len(r.tests)
	if rate < r.p.cfg.PassRate {
		return fmt.Errorf("%w: probe pass rate %.2f is below %.2f: %s", errQuality, rate, r.p.cfg.PassRate, strings.Join(firstN(failures, 3), "; "))
	}
	r.bundle = b
	return nil
}

// runProbes is EnvScaler's assessment: in each of N rounds a test agent
// (the model) issues a sequence of calls against the built environment,
// saying what it expects of each; a checker (the model again) judges every
// result against the expectation and the tool's description. The
// environment is kept when the pass rate over all rounds reaches
// Config.PassRate.
func (r *envRun) runProbes(ctx context.Context, env *runtime.Env, tools []envpkg.Tool) (rate float64, failures []string, err error) {
	passed, total := 0, 0
	for round := 1; round <= r.p.cfg.ProbeRounds; round++ {
		var calls probeOut
		data := with(r.base(), "Round", round, "ToolSchemas", tools)
		err := runStage(ctx, r, stageCall{stage: StageProbe, key: fmt.Sprintf("%s/%d", r.sc.Name, round), data: data}, &calls, func(_ context.Context, o *probeOut) verdict {
			var probs []string
			for i, c := range o.Calls {
				if !hasTool(tools, c.Tool) {
					probs = append(probs, fmt.Sprintf("call %d names tool %q, which the environment does not have", i+1, c.Tool))
				}
			}
			if len(o.Calls) == 0 {
				probs = append(probs, "no calls")
			}
			return verdict{Problems: probs}
		})
		if err != nil {
			return 0, nil, err
		}
		results, err := execProbe(ctx, env, round, calls.Calls)
		if err != nil {
			return 0, nil, err
		}
		var verdicts checkerOut
		cdata := with(r.base(), "Round", round, "ToolSchemas", tools, "Results", results)
		err = runStage(ctx, r, stageCall{stage: StageChecker, key: fmt.Sprintf("%s/%d", r.sc.Name, round), data: cdata}, &verdicts, func(_ context.Context, o *checkerOut) verdict {
			seen := map[int]bool{}
			for _, v := range o.Verdicts {
				seen[v.Index] = true
			}
			var probs []string
			for _, res := range results {
				if !seen[res.Index] {
					probs = append(probs, fmt.Sprintf("no verdict for call %d", res.Index))
				}
			}
			return verdict{Problems: probs}
		})
		if err != nil {
			return 0, nil, err
		}
		pass := map[int]bool{}
		reason := map[int]string{}
		for _, v := range verdicts.Verdicts {
			pass[v.Index], reason[v.Index] = v.Pass, v.Reason
		}
		for _, res := range results {
			total++
			if res.Fault != "" {
				failures = append(failures, fmt.Sprintf("round %d call %d %s: the tool failed (%s)", round, res.Index, res.Tool, res.Fault))
				continue
			}
			if pass[res.Index] {
				passed++
				continue
			}
			failures = append(failures, fmt.Sprintf("round %d call %d %s(%s): %s", round, res.Index, res.Tool, canonjson.Encode(res.Args), reason[res.Index]))
		}
	}
	if total == 0 {
		return 0, failures, nil
	}
	return float64(passed) / float64(total), failures, nil
}

func hasTool(tools []envpkg.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// execProbe runs a round's calls in order in one episode.
func execProbe(ctx context.Context, env *runtime.Env, round int, calls []probeCall) ([]probeResult, error) {
	ep, err := env.NewEpisode("", int64(round))
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	var out []probeResult
	for i, c := range calls {
		args := c.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		res, err := ep.Call(ctx, c.Tool, args)
		if err != nil {
			return nil, err
		}
		out = append(out, probeResult{Index: i + 1, Tool: c.Tool, Args: args, Expect: c.Expect,
			IsError: res.IsError, Result: truncate(strings.TrimSpace(res.Content), 600)})
		if res.Outcome.EnvFault() {
			out[len(out)-1].Fault = string(res.Outcome)
		}
	}
	return out, nil
}
