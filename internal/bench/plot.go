package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot writes the report's plots as PNG files into dir:
// bench-latency.png (reset and step latency distributions),
// bench-throughput.png, bench-reset-size.png, bench-end-size.png (an
// episode's end after 1, 10, 100 writes), bench-memory.png.
func Plot(r *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, f := range map[string]func(*Report) (*plot.Plot, error){
		"bench-latency.png":    plotLatency,
		"bench-throughput.png": plotThroughput,
		"bench-reset-size.png": plotResetSize,
		"bench-end-size.png":   plotEndSize,
		"bench-memory.png":     plotMemory,
	} {
		p, err := f(r)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fitLogAxis(&p.X)
		fitLogAxis(&p.Y)
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// fitLogAxis keeps a log axis drawable when the data leave it degenerate
// (a single point, or a zero latency from a timer's resolution), which
// gonum/plot would refuse with a panic.
func fitLogAxis(a *plot.Axis) {
	if _, ok := a.Scale.(plot.LogScale); !ok {
		return
	}
	if a.Max <= 0 {
		a.Min, a.Max = 0.1, 10
		return
	}
	if a.Min <= 0 {
		a.Min = a.Max / 1e3
	}
	if a.Min >= a.Max {
		a.Min, a.Max = a.Min/2, a.Max*2
	}
}

// cdf is a latency distribution as (latency µs, fraction below) points.
func cdf(samples []int64) plotter.XYs {
	step := max(1, len(samples)/400)
	var xy plotter.XYs
	for i := 0; i < len(samples); i += step {
		xy = append(xy, plotter.XY{X: float64(samples[i]) / 1e3, Y: float64(i+1) / float64(len(samples))})
	}
	return xy
}

func plotLatency(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Latency distributions (CDF)"
	p.X.Label.Text = "latency (µs, log)"
	p.Y.Label.Text = "fraction of calls"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []any
	for _, name := range r.Order {
		f := r.figures(name)
		for _, s := range []struct {
			what string
			l    Latency
		}{{"reset", f.ResetNs}, {"read", f.StepReadNs}, {"write", f.StepWriteNs}} {
			if len(s.l.Samples) > 0 {
				lines = append(lines, name+" "+s.what, cdf(s.l.Samples))
			}
		}
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return nil, err
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = -40
	return p, nil
}

func plotThroughput(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Throughput versus concurrent episodes"
	p.X.Label.Text = "concurrent episodes (log)"
	p.Y.Label.Text = "steps/s"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []any
	for _, name := range r.Order {
		var xy plotter.XYs
		for _, n := range []int{1, 10, 100, 1000} {
			if v, ok := r.figures(name).Throughput[strconv.Itoa(n)]; ok {
				xy = append(xy, plotter.XY{X: float64(n), Y: v})
			}
		}
		if len(xy) > 0 {
			lines = append(lines, name, xy)
		}
	}
	return p, plotutil.AddLinePoints(p, lines...)
}

func plotResetSize(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Reset latency (p50) versus database size"
	p.X.Label.Text = "database size (MiB, log)"
	p.Y.Label.Text = "reset p50 (µs, log)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	var lines []any
	for _, name := range r.Order {
		var xy plotter.XYs
		for k, l := range r.figures(name).ResetBySize {
			n, _ := strconv.ParseFloat(k, 64)
			xy = append(xy, plotter.XY{X: n / (1 << 20), Y: max(float64(l.P50)/1e3, 0.01)})
		}
		sortXY(xy)
		if len(xy) > 0 {
			lines = append(lines, name, xy)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, plotutil.AddLinePoints(p, lines...)
}

// plotEndSize is wasmenv's (wazero) episode end, diff + state hash and
// score, after 1, 10 and 100 writes, versus the database size, beside the
// reset curve.
func plotEndSize(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Episode end (p50) versus database size"
	p.X.Label.Text = "database size (MiB, log)"
	p.Y.Label.Text = "p50 (µs, log)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	var lines []any
	top := 0.0
	series := func(label string, at func(k string) (Latency, bool)) {
		var xy plotter.XYs
		for k := range r.EndBySize {
			if l, ok := at(k); ok {
				n, _ := strconv.ParseFloat(k, 64)
				xy = append(xy, plotter.XY{X: n / (1 << 20), Y: max(float64(l.P50)/1e3, 0.01)})
				top = max(top, float64(l.P50)/1e3)
			}
		}
		sortXY(xy)
		if len(xy) > 0 {
			lines = append(lines, label, xy)
		}
	}
	series("reset", func(k string) (Latency, bool) { l, ok := r.ResetBySize[k]; return l, ok })
	for _, what := range []string{"diffhash", "score"} {
		for _, n := range endWrites {
			m := what + "/" + strconv.Itoa(n)
			series(fmt.Sprintf("%s, %s", map[string]string{"diffhash": "diff + hash", "score": "score"}[what], writesLabel(n)),
				func(k string) (Latency, bool) { l, ok := r.EndBySize[k][m]; return l, ok })
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, err
	}
	p.Y.Max = max(p.Y.Max, top*100) // room above the lines for the legend
	return p, nil
}

func sortXY(xy plotter.XYs) {
	for i := 1; i < len(xy); i++ {
		for j := i; j > 0 && xy[j].X < xy[j-1].X; j-- {
			xy[j], xy[j-1] = xy[j-1], xy[j]
		}
	}
}

func plotMemory(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Resident memory per episode (N = %d)", r.RSSEpisodes)
	p.Y.Label.Text = "KiB per episode"
	w := vg.Points(14)
	var names []string
	for i, kind := range []string{"idle", "active"} {
		var v plotter.Values
		names = names[:0]
		for _, name := range r.Order {
			f := r.figures(name)
			if f.RSSEpisodes == 0 {
				continue
			}
			names = append(names, name)
			x := f.RSSIdle
			if kind == "active" {
				x = f.RSSActive
			}
			v = append(v, float64(max(x, 0))/1024)
		}
		if len(v) == 0 {
			continue
		}
		bars, err := plotter.NewBarChart(v, w)
		if err != nil {
			return nil, err
		}
		bars.Color = []color.Color{color.RGBA{R: 80, G: 120, B: 200, A: 255}, color.RGBA{R: 220, G: 120, B: 60, A: 255}}[i]
		bars.Offset = vg.Length(2*i-1) * w / 2
		p.Add(bars)
		p.Legend.Add(kind, bars)
	}
	p.NominalX(names...)
	p.Legend.Top = true
	return p, nil
}

func writesLabel(n int) string {
	if n == 1 {
		return "1 write"
	}
	return strconv.Itoa(n) + " writes"
}
