package fleetbench

import (
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot writes fleet-rollouts.png and fleet-steps.png into dir: the rate
// on 1, 2, 4 … worker processes, beside the in-process engine's as
// horizontal lines.
func Plot(r *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, s := range map[string]struct {
		title, unit string
		rate        func(Point) float64
	}{
		"fleet-rollouts.png": {"Rollouts/s: worker processes on NATS vs in-process", "rollouts/s", func(p Point) float64 { return p.RolloutsPerSec }},
		"fleet-steps.png":    {"Env steps/s: worker processes on NATS vs in-process", "steps/s", func(p Point) float64 { return p.StepsPerSec }},
	} {
		p := plot.New()
		p.Title.Text = s.title + " (" + strconv.Itoa(r.CPUs) + " CPUs, all processes on them)"
		p.X.Label.Text = "worker processes"
		p.Y.Label.Text = s.unit
		p.Y.Min = 0
		p.Y.Tick.Marker = wholeTicks{}
		var fleetXY plotter.XYs
		maxW := 1.0
		for _, pt := range r.Points {
			if pt.Workers > 0 {
				fleetXY = append(fleetXY, plotter.XY{X: float64(pt.Workers), Y: s.rate(pt)})
				maxW = max(maxW, float64(pt.Workers))
			}
		}
		lines := []any{"NATS, worker processes", fleetXY}
		for _, pt := range r.Points {
			if pt.Workers == 0 {
				lines = append(lines, pt.Where, plotter.XYs{{X: 1, Y: s.rate(pt)}, {X: maxW, Y: s.rate(pt)}})
			}
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
		var ticks []plot.Tick
		for _, xy := range fleetXY {
			ticks = append(ticks, plot.Tick{Value: xy.X, Label: strconv.Itoa(int(xy.X))})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = 0.8, maxW+0.2
		p.Legend.Top = true
		p.Y.Max *= 1.3 // room for the legend above the lines
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// wholeTicks are gonum's default ticks labelled as whole numbers (rates
// of thousands need no decimals).
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', 0, 64)
		}
	}
	return ts
}
