package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"syscall"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

// BenchmarkReplay is issue 35's "the whole path as cheap as its parts":
// the same episodes (every task's ground truth with its answer, the tasks
// in turn) replayed in-process (reset, calls, diff and hash, score) and
// through replay's JSONL path (a line parsed, the same work, its result
// encoded), per episode. cpu-ns/op is the process's CPU time per episode,
// which moves less than ns/op on a loaded machine.
func BenchmarkReplay(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"taubench-retail", "airline"} {
		// Each environment is set up inside its own sub-benchmark, so
		// that -bench BenchmarkReplay/airline builds and warms nothing else
		// (a CPU profile of one environment holds only its work).
		b.Run(name, func(b *testing.B) { benchmarkReplay(ctx, b, name) })
	}
}

func benchmarkReplay(ctx context.Context, b *testing.B, name string) {
	dir := b.TempDir()
	if err := envs.Extract(name, dir); err != nil {
		b.Fatal(err)
	}
	bundle, err := compiler.Build(ctx, dir, compiler.Options{})
	if err != nil {
		b.Fatal(err)
	}
	env, err := runtime.LoadBundle(ctx, bundle, runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, t := range bundle.Tasks {
		in := replayIn{ID: t.ID, Calls: t.Calls, Task: t.ID}
		if t.Answer != nil {
			r := t.Answer.Reply()
			in.Answer = &r
		}
		l, _ := json.Marshal(in)
		lines = append(lines, l)
	}
	// One pass first: every task's ground-truth hash is computed once
	// per environment, in neither figure.
	if _, _, err := replay(ctx, env, bytes.NewReader(bytes.Join(lines, []byte("\n"))), io.Discard); err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		eps := map[string]*runtime.Episode{}
		defer func() {
			for _, ep := range eps {
				ep.Close()
			}
		}()
		defer reportCPU(b)()
		for i := range b.N {
			t := &bundle.Tasks[i%len(bundle.Tasks)]
			inProcess(ctx, b, env, eps, t)
		}
	})
	b.Run("replay", func(b *testing.B) {
		var in bytes.Buffer
		for i := range b.N {
			in.Write(lines[i%len(lines)])
			in.WriteByte('\n')
		}
		b.ResetTimer()
		defer reportCPU(b)()
		if failed, _, err := replay(ctx, env, &in, io.Discard); err != nil || failed > 0 {
			b.Fatal(failed, err)
		}
	})
	env.Close()
}

// inProcess is replayLine's work without the JSON.
func inProcess(ctx context.Context, b *testing.B, env *runtime.Env, eps map[string]*runtime.Episode, t *envpkg.Task) {
	ep := eps[t.ID]
	var err error
	if ep == nil {
		if ep, err = env.NewEpisode(t.ID, 0); err != nil {
			b.Fatal(err)
		}
		eps[t.ID] = ep
	} else if err = ep.ResetSeed(0); err != nil {
		b.Fatal(err)
	}
	for _, c := range t.Calls {
		if _, err := ep.Call(ctx, c.Name, envpkg.CallArguments(c.Arguments)); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := ep.DiffAndHash(); err != nil {
		b.Fatal(err)
	}
	var answer *string
	if t.Answer != nil {
		r := t.Answer.Reply()
		answer = &r
	}
	if _, err := ep.Score(ctx, answer); err != nil {
		b.Fatal(err)
	}
	ep.Reset() // as replay does after each line
	ep.Release()
}

// reportCPU starts counting the process's CPU time; the function it returns
// reports it per op as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	return func() {
		var ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}
