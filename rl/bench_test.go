package rl_test

import (
	"context"
	"io"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// benchInFlight is the number of episodes open and running at once.
const benchInFlight = 1000

// replay is a policy that says recorded replies: it costs almost nothing,
// so a loop driven by it measures the engine alone.
type replay map[string][]rl.Message // group#index → assistant messages

func key(group string, index int) string {
	return group + "#" + string(rune('0'+index%64)) + string(rune('0'+index/64))
}

func (p replay) Act(_ context.Context, t *rl.Turn) (rl.Reply, error) {
	msgs := p[key(t.Env+"/"+t.Task.ID+"/0", t.Index)]
	if t.Number < len(msgs) {
		m := msgs[t.Number]
		m.ToolCalls = append([]rl.ToolCall(nil), m.ToolCalls...)
		return rl.Reply{Message: m}, nil
	}
	return rl.Reply{Message: rl.Message{Content: "Done."}}, nil
}

// BenchmarkRollout runs 1,024 rollouts of the random policy on the store
// example (16 tasks × G=64) with 1,000 episodes in flight, three ways, in
// one run:
//
//   - raw: the same tool calls on the runtime directly, 1,000 goroutines
//     each opening an episode, calling, scoring and closing it; the floor;
//   - engine: the rollout engine replaying the random policy's recorded
//     replies (a policy that costs nothing), so the difference from raw is
//     the engine's own overhead;
//   - engine-jsonl: the same, encoding every rollout as a JSONL line;
//   - random: the whole loop with the random policy deciding each turn.
//
// Each reports ns/step (a step is one tool call that reached the runtime)
// and steps/s.
func BenchmarkRollout(b *testing.B) {
	env := rltest.Load(b, "store")
	cfg := rl.Config{Group: 64, MaxTurns: 8, Concurrency: benchInFlight}
	var rec rltest.Collect
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, &rl.Random{}, cfg, &rec); err != nil {
		b.Fatal(err)
	}
	type seqCall struct{ name, args string }
	type job struct {
		task  string
		seed  int64
		calls []seqCall
	}
	var jobs []job
	policy := replay{}
	steps := 0
	for _, r := range rec.All() {
		j := job{task: r.Task, seed: r.Seed}
		var said []rl.Message
		for _, m := range r.Messages {
			if m.Role != rl.RoleAssistant {
				continue
			}
			said = append(said, m)
			for _, c := range m.ToolCalls {
				j.calls = append(j.calls, seqCall{c.Function.Name, c.Function.Arguments})
			}
		}
		policy[key(r.GroupID, r.Index)] = said
		steps += len(j.calls)
		jobs = append(jobs, j)
	}
	// On a shared machine wall time mostly measures the neighbours, so the
	// process's CPU time per step is reported beside it.
	var cpu0 time.Duration
	report := func(b *testing.B, start time.Time) {
		el := time.Since(start)
		n := float64(b.N * steps)
		b.ReportMetric(float64(el.Nanoseconds())/n, "ns/step")
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/n, "cpu-ns/step")
		b.ReportMetric(n/el.Seconds(), "steps/s")
	}
	b.Run("raw", func(b *testing.B) {
		ctx := context.Background()
		start := time.Now()
		cpu0 = cpuTime()
		for range b.N {
			work := make(chan job)
			var wg sync.WaitGroup
			for range benchInFlight {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range work {
						ep, err := env.NewEpisode(j.task, j.seed)
						if err != nil {
							b.Error(err)
							continue
						}
						for _, c := range j.calls {
							if _, err := ep.Call(ctx, c.name, []byte(c.args)); err != nil {
								b.Error(err)
							}
						}
						if _, err := ep.Score(ctx, nil); err != nil {
							b.Error(err)
						}
						ep.Close()
					}
				}()
			}
			for _, j := range jobs {
				work <- j
			}
			close(work)
			wg.Wait()
		}
		report(b, start)
	})
	// One goroutine, the same work, timed by phase: where a step's cost goes.
	b.Run("raw-phases", func(b *testing.B) {
		ctx := context.Background()
		var open, calls, score, closing time.Duration
		for range b.N {
			for _, j := range jobs {
				t0 := time.Now()
				ep, err := env.NewEpisode(j.task, j.seed)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				for _, c := range j.calls {
					ep.Call(ctx, c.name, []byte(c.args))
				}
				t2 := time.Now()
				ep.Score(ctx, nil)
				t3 := time.Now()
				ep.Close()
				open, calls, score, closing = open+t1.Sub(t0), calls+t2.Sub(t1), score+t3.Sub(t2), closing+time.Since(t3)
			}
		}
		n := float64(b.N)
		b.ReportMetric(float64(open.Nanoseconds())/n/float64(len(jobs)), "open-ns/rollout")
		b.ReportMetric(float64(calls.Nanoseconds())/n/float64(steps), "call-ns/step")
		b.ReportMetric(float64(score.Nanoseconds())/n/float64(len(jobs)), "score-ns/rollout")
		b.ReportMetric(float64(closing.Nanoseconds())/n/float64(len(jobs)), "close-ns/rollout")
		b.ReportMetric(float64(steps)/float64(len(jobs)), "steps/rollout")
	})
	loop := func(p rl.Policy, jsonl bool) func(b *testing.B) {
		return func(b *testing.B) {
			start := time.Now()
			cpu0 = cpuTime()
			for range b.N {
				var out rl.Exporter = &rltest.Collect{}
				if jsonl {
					out = rl.NewJSONL(io.Discard)
				}
				sum, err := rl.Run(context.Background(), []*runtime.Env{env}, p, cfg, out)
				if err != nil {
					b.Fatal(err)
				}
				if sum.EnvSteps != steps {
					b.Fatalf("%d steps, recorded %d", sum.EnvSteps, steps)
				}
			}
			report(b, start)
		}
	}
	b.Run("engine", loop(policy, false))
	b.Run("engine-jsonl", loop(policy, true))
	b.Run("random", loop(&rl.Random{}, false))
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
