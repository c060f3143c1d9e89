package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// RunLocal runs refs in this process, at most parallel groups at once,
// each through RunGroup, and writes them to out in plan order. envs maps a
// bundle hash to its loaded environment. It is `--shard i/n` without NATS,
// and the reference a fleet run's output is compared with.
func RunLocal(ctx context.Context, envs map[string]*runtime.Env, spec *Spec, refs []GroupRef, parallel int, out Output, progress func(done, total int)) (*rl.Summary, error) {
	policy, err := spec.Policy.Build()
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		if envs[ref.Bundle] == nil {
			return nil, errorf(CodeBadBundle, nil, "group %d: bundle %s not loaded", ref.Index, ref.Bundle)
		}
	}
	return runLocal(ctx, refs, parallel, out, progress, func(ctx context.Context, ref GroupRef) (*Result, error) {
		return RunGroup(ctx, envs[ref.Bundle], spec, ref, policy)
	})
}

// runLocal runs the jobs of refs in this process, at most parallel at
// once, each through run, and writes them to out in plan order.
func runLocal(ctx context.Context, refs []GroupRef, parallel int, out Output, progress func(done, total int), run func(context.Context, GroupRef) (*Result, error)) (*rl.Summary, error) {
	start := time.Now()
	asm := newAssembler(refs, out)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for _, ref := range refs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := run(ctx, ref)
			if err == nil {
				_, err = asm.add(res)
			}
			if err != nil {
				cancel(err)
				return
			}
			if progress != nil {
				n, _ := asm.done()
				progress(n, len(refs))
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return asm.sum.finish(time.Since(start).Seconds()), nil
}
