package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// measureSizes fills ResetBySize: reset latency after 5 writes and 5 reads
// with the database grown to each of cfg.Sizes.
func measureSizes(ctx context.Context, b *envpkg.Bundle, w *workload, cache string, cfg *Config, rep *Report) error {
	for _, size := range cfg.Sizes {
		db, err := growDB(b.DB, size)
		if err != nil {
			return fmt.Errorf("grow database to %d bytes: %w", size, err)
		}
		grown := *b
		grown.DB = db
		grown.Manifest.DBBytes = int64(len(db))
		key := strconv.FormatInt(size, 10)
		for _, name := range rep.Order {
			var sys system
			switch name {
			case "filecopy":
				sys, err = newFilecopy(db)
			case "serdes":
				sys = &serdesSystem{img: db}
			default:
				opts := runtime.Options{CompileCacheDir: cache}
				if name != "wasmenv" {
					opts.Engine = name
				}
				sys, err = newWasmenv(ctx, name, &grown, opts)
			}
			if err != nil {
				return err
			}
			ww := w
			if (name == "filecopy" || name == "serdes") && !w.native {
				ww = &workload{}
			}
			ep, err := sys.newEpisode()
			if err != nil {
				sys.close()
				return err
			}
			ds, err := resetSamples(ep, ww, rand.New(rand.NewPCG(9, uint64(size))), 1000, 1500*time.Millisecond)
			ep.close()
			sys.close()
			if err != nil {
				return fmt.Errorf("%s at %d bytes: %w", name, size, err)
			}
			f := rep.figures(name)
			if f.ResetBySize == nil {
				f.ResetBySize = map[string]Latency{}
			}
			l := summarize(ds)
			f.ResetBySize[key] = l
			cfg.logf("  %s %s: reset p50 %s", fmtBytes(int64(len(db))), name, fmtNs(l.P50))
		}
	}
	return nil
}

func (r *Report) figures(name string) *Figures {
	if name == "wasmenv" {
		return &r.Figures
	}
	return r.Baselines[name]
}

// WriteTable prints the report as a table, one column per system.
func (r *Report) WriteTable(out io.Writer) {
	m := r.Machine
	fmt.Fprintf(out, "machine: %s, %d cores (GOMAXPROCS %d), %s, %s, %s\n", m.CPU, m.Cores, m.GOMAXPROCS, fmtBytes(m.MemBytes), m.Go, m.OS)
	fmt.Fprintf(out, "bundle:  %s\nworkload: %s\n\n", r.Bundle, r.Workload)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, f func(*Figures) string) {
		cells := []string{label}
		for _, n := range r.Order {
			cells = append(cells, f(r.figures(n)))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(f *Figures) string { return "" })
	hdr := []string{"figure"}
	hdr = append(hdr, r.Order...)
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	row("reset p50", func(f *Figures) string { return fmtNs(f.ResetNs.P50) })
	row("reset p99", func(f *Figures) string { return fmtNs(f.ResetNs.P99) })
	row("reset max", func(f *Figures) string { return fmtNs(f.ResetNs.Max) })
	row("step read p50", func(f *Figures) string { return fmtNs(f.StepReadNs.P50) })
	row("step read p99", func(f *Figures) string { return fmtNs(f.StepReadNs.P99) })
	row("step write p50", func(f *Figures) string { return fmtNs(f.StepWriteNs.P50) })
	row("step write p99", func(f *Figures) string { return fmtNs(f.StepWriteNs.P99) })
	var tools []string
	for t := range r.StepToolNs {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	for _, t := range tools {
		row("  "+t+" p50", func(f *Figures) string { return fmtNs(f.StepToolNs[t].P50) })
	}
	for _, n := range []string{"1", "10", "100", "1000"} {
		if _, ok := r.Throughput[n]; !ok {
			continue
		}
		row("steps/s, N="+n, func(f *Figures) string {
			if v, ok := f.Throughput[n]; ok {
				return strconv.FormatFloat(v, 'f', 0, 64)
			}
			return "-"
		})
	}
	row("RSS / idle episode", func(f *Figures) string { return fmtBytes(f.RSSIdle) })
	row("RSS / active episode", func(f *Figures) string { return fmtBytes(f.RSSActive) })
	row("RSS, N="+strconv.Itoa(r.RSSEpisodes)+" active", func(f *Figures) string { return fmtBytes(f.RSSTotal) })
	row("cold start, cached", func(f *Figures) string { return fmtNs(int64(f.ColdStartMs.Cached * 1e6)) })
	row("cold start, uncached", func(f *Figures) string { return fmtNs(int64(f.ColdStartMs.Uncached * 1e6)) })
	row("bundle raw", func(f *Figures) string { return fmtBytes(f.BundleBytes.Raw) })
	row("bundle zstd", func(f *Figures) string { return fmtBytes(f.BundleBytes.Zstd) })
	var sizes []int64
	for k := range r.ResetBySize {
		n, _ := strconv.ParseInt(k, 10, 64)
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	for _, s := range sizes {
		k := strconv.FormatInt(s, 10)
		row("reset p50, "+fmtBytes(s)+" db", func(f *Figures) string { return fmtNs(f.ResetBySize[k].P50) })
		row("reset p99, "+fmtBytes(s)+" db", func(f *Figures) string { return fmtNs(f.ResetBySize[k].P99) })
	}
	for _, s := range sizes {
		k := strconv.FormatInt(s, 10)
		for _, what := range []string{"diffhash", "score"} {
			for _, n := range endWrites {
				m := what + "/" + strconv.Itoa(n)
				if _, ok := r.EndBySize[k][m]; !ok {
					continue
				}
				label := map[string]string{"diffhash": "diff + hash", "score": "score"}[what]
				row(fmt.Sprintf("%s p50 after %s, %s db", label, writesLabel(n), fmtBytes(s)), func(f *Figures) string {
					if l, ok := f.EndBySize[k][m]; ok {
						return fmtNs(l.P50)
					}
					return "-"
				})
			}
		}
	}
	tw.Flush()
	if v := r.VersusHostSQL(); len(v) > 0 {
		fmt.Fprintf(out, "\nwasmenv (wazero) against unsandboxed host SQL (serdes), same run:\n")
		for _, x := range v {
			fmt.Fprintf(out, "  %s: %s / %s = %.2fx\n", x.Figure, x.Wasmenv, x.Host, x.Ratio)
		}
	}
}

// HostSQLRatio is one of issue 35's step-path figures: wasmenv's over the
// same step as the tool's SQL run on the host (the serdes baseline): for a
// latency lower is better, for throughput (steps/s) higher.
type HostSQLRatio struct {
	Figure, Wasmenv, Host string
	Ratio                 float64
}

// VersusHostSQL compares wasmenv with the serdes baseline on the point read
// (get_order), the single-row write and steps/s at the largest N; nil
// without a serdes baseline.
func (r *Report) VersusHostSQL() []HostSQLRatio {
	h := r.Baselines["serdes"]
	if h == nil {
		return nil
	}
	var out []HostSQLRatio
	lat := func(name string, w, b Latency) {
		if w.P50 > 0 && b.P50 > 0 {
			out = append(out, HostSQLRatio{name + " p50", fmtNs(w.P50), fmtNs(b.P50), float64(w.P50) / float64(b.P50)})
		}
	}
	if w, ok := r.StepToolNs["get_order"]; ok {
		lat("point read (get_order)", w, h.StepToolNs["get_order"])
	}
	lat("write", r.StepWriteNs, h.StepWriteNs)
	lat("reset", r.ResetNs, h.ResetNs)
	for _, n := range []string{"1000", "100", "10", "1"} {
		w, b := r.Throughput[n], h.Throughput[n]
		if w > 0 && b > 0 {
			out = append(out, HostSQLRatio{"steps/s, N=" + n + " (higher is better)", strconv.FormatFloat(w, 'f', 0, 64), strconv.FormatFloat(b, 'f', 0, 64), w / b})
			break
		}
	}
	return out
}
