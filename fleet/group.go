package fleet

import (
	"bytes"
	"context"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Result is one finished group: the JSONL lines rl.Run wrote for it (none
// when the group was dropped) and its summary.
type Result struct {
	Index   int
	Lines   []byte
	Summary *rl.Summary
}

// RunGroup runs one group as the local engine does: rl.Run over env with
// the run's settings, restricted to the one task, writing JSONL.
func RunGroup(ctx context.Context, env *runtime.Env, spec *Spec, ref GroupRef, policy rl.Policy) (*Result, error) {
	return runGroup(ctx, env, spec, ref, policy, nil)
}

// runGroup is RunGroup with the endpoints of e (nil: a local run's).
func runGroup(ctx context.Context, env *runtime.Env, spec *Spec, ref GroupRef, policy rl.Policy, e *Endpoints) (*Result, error) {
	if env.Bundle.Hash != ref.Bundle {
		return nil, errorf(CodeBadBundle, nil, "group %d wants bundle %s, got %s", ref.Index, ref.Bundle, env.Bundle.Hash)
	}
	if spec.Eval {
		return runEval(ctx, env, spec, ref, policy, e)
	}
	cfg, err := spec.config(e)
	if err != nil {
		return nil, err
	}
	cfg.Tasks = ref.Task // a task id matches itself alone (see rl.MatchTask)
	var buf bytes.Buffer
	out := rl.NewJSONL(&buf)
	// Compact lines after the group's own toolset records: the driver
	// writes them as they are, less the records its file already has
	// (output_raw.go), or reads them back into rollouts.
	sum, err := rl.Run(ctx, []*runtime.Env{env}, policy, cfg, out)
	if err != nil {
		return nil, err
	}
	if err := out.Close(); err != nil {
		return nil, err
	}
	return &Result{Index: ref.Index, Lines: buf.Bytes(), Summary: sum}, nil
}
