package fleet_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
)

// BenchmarkFleet runs every task of two bundles in groups of 8 with the
// random policy: in this process (RunLocal) and on 1, 2 and 4 workers over
// an embedded NATS server on loopback. Workers are goroutines with their
// own connection and bundle cache, so on few cores they share the CPU with
// the server and the driver (docs/SCALING.md).
func BenchmarkFleet(b *testing.B) {
	store, calendar := bundle(b, "store"), bundle(b, "calendar")
	files := []*fleet.BundleFile{store, calendar}
	spec := &fleet.Spec{Group: 8, Seed: 1, MaxTurns: 10, Policy: fleet.PolicySpec{Kind: "random"}}
	refs := plan(b, spec, files...)
	report := func(b *testing.B, sum *rl.Summary, wall float64) {
		b.ReportMetric(float64(sum.Rollouts)/wall, "rollouts/s")
		b.ReportMetric(float64(sum.EnvSteps)/wall, "steps/s")
		b.ReportMetric(wall/float64(len(refs))*1e6, "µs/job")
	}
	for _, parallel := range []int{1, len(refs)} {
		b.Run(fmt.Sprintf("in-process/groups-at-once=%d", parallel), func(b *testing.B) {
			envs := loadAll(b, files...)
			var sum *rl.Summary
			var wall float64
			for b.Loop() {
				var err error
				sum, err = fleet.RunLocal(context.Background(), envs, spec, refs, parallel, &memOutput{}, nil)
				if err != nil {
					b.Fatal(err)
				}
				wall += sum.WallSeconds
			}
			report(b, sum, wall/float64(b.N))
		})
	}
	for _, workers := range []int{1, 2, 4} {
		for _, slots := range []int{1, 4} {
			b.Run(fmt.Sprintf("nats/workers=%d/jobs=%d", workers, slots), func(b *testing.B) {
				url := startServer(b)
				startWorkersSlots(b, url, workers, slots)
				d := &fleet.Driver{NC: connect(b, url)}
				run := func() (*rl.Summary, float64) {
					sum, err := d.Run(context.Background(), files, spec, refs, &memOutput{})
					if err != nil {
						b.Fatal(err)
					}
					return sum, sum.WallSeconds
				}
				run() // every worker loads the bundles once
				var sum *rl.Summary
				var wall float64
				for b.Loop() {
					var w float64
					sum, w = run()
					wall += w
				}
				report(b, sum, wall/float64(b.N))
			})
		}
	}
}

// BenchmarkJobOverhead is the cost NATS adds to one job: groups of one
// rollout of one turn, one at a time, in this process and on one worker
// running one job at a time. The difference of µs/job is the overhead
// (enqueue, pull, heartbeat, result publish with dedup, ack, follow).
func BenchmarkJobOverhead(b *testing.B) {
	store := bundle(b, "store")
	spec := &fleet.Spec{Group: 1, Seed: 1, MaxTurns: 1, Policy: fleet.PolicySpec{Kind: "random"}}
	refs := plan(b, spec, store)
	b.Run("in-process", func(b *testing.B) {
		envs := loadAll(b, store)
		for b.Loop() {
			if _, err := fleet.RunLocal(context.Background(), envs, spec, refs, 1, &memOutput{}, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(refs)), "µs/job")
	})
	b.Run("nats", func(b *testing.B) {
		url := startServer(b)
		startWorkersSlots(b, url, 1, 1)
		d := &fleet.Driver{NC: connect(b, url)}
		if _, err := d.Run(context.Background(), []*fleet.BundleFile{store}, spec, refs, &memOutput{}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := d.Run(context.Background(), []*fleet.BundleFile{store}, spec, refs, &memOutput{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(refs)), "µs/job")
	})
}

// BenchmarkDriverWrite is the driver's side of every result: the groups'
// lines as workers send them (each group's toolset records, then compact
// lines) written to a JSONL file as they are (less repeated records), or
// read back into rollouts first as for Parquet and --inline-tools. One
// driver does this for the whole fleet, so its rate bounds a run's
// rollouts/s (docs/SCALING.md).
func BenchmarkDriverWrite(b *testing.B) {
	store, calendar := bundle(b, "store"), bundle(b, "calendar")
	spec := &fleet.Spec{Group: 16, Seed: 1, MaxTurns: 20, Policy: fleet.PolicySpec{Kind: "random"}}
	sent := &memOutput{}
	sum, err := fleet.RunLocal(context.Background(), loadAll(b, store, calendar), spec, plan(b, spec, store, calendar), 4, sent, nil)
	if err != nil {
		b.Fatal(err)
	}
	lines := sent.buf.Bytes()
	for name, open := range map[string]func() fleet.Output{
		"jsonl": func() fleet.Output {
			out, _ := fleet.CreateOutput("-", io.Discard, false)
			return out
		},
		"decoded": func() fleet.Output { return fleet.FromExporter(rl.NewJSONL(io.Discard), func() {}) },
	} {
		b.Run(name, func(b *testing.B) {
			check := fleet.CheckToolsets() // one run's checker, as the driver's
			b.SetBytes(int64(len(lines)))
			for b.Loop() {
				// What the driver checks of every result first
				// (toolset records and their ids, resultOf).
				if err := check(lines); err != nil {
					b.Fatal(err)
				}
				out := open()
				if err := out.WriteGroup(lines); err != nil {
					b.Fatal(err)
				}
				out.Close()
			}
			b.ReportMetric(float64(len(lines))/float64(sum.Rollouts), "bytes/rollout")
			b.ReportMetric(float64(sum.Rollouts*b.N)/b.Elapsed().Seconds(), "rollouts/s")
		})
	}
}
