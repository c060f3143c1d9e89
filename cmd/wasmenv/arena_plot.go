package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/wasmenv/wasmenv/envpkg"
)

// arenaDemoResults is the part of the arena demonstration's results.json
// (rl/learner/wasmlearn/arena_demo.py) that the plot reads.
type arenaDemoResults struct {
	Seeds []struct {
		Seed int                     `json:"seed"`
		Arms map[string]arenaDemoArm `json:"arms"`
		// Baseline is the SFT policy, never trained further, on each round's tasks.
		Baseline []arenaDemoRound `json:"sft_baseline"`
	} `json:"seeds"`
}

type arenaDemoArm struct {
	Rounds []arenaDemoRound `json:"rounds"`
}

type arenaDemoRound struct {
	Round     int      `json:"round"`
	Success   float64  `json:"success"`
	FirstTool *float64 `json:"first_tool"` // absent in results written before it was recorded
}

// arenaPlotCmd draws the demonstration's plot (matplotlib is not in
// Debian's python3-torch environment; gonum/plot is already a dependency).
func arenaPlotCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json -o FILE.png",
		Short: "Plot the arena demonstration: arena success per round, targeted vs control, and the paired difference",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			var r arenaDemoResults
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			png, err := arenaDemoPlot(&r)
			if err != nil {
				return err
			}
			return envpkg.WriteFileAtomic(out, png)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "PNG file to write")
	cmd.MarkFlagRequired("output")
	return cmd
}

var armStyle = map[string]color.NRGBA{
	"targeted": {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"control":  {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
}

// metric is one figure of a round: arena success, or the share of
// rollouts whose first call is the ground truth's first tool.
type metric struct {
	title, label, short string
	get                 func(round int, a arenaDemoArm) (float64, bool)
}

func arenaDemoPlot(r *arenaDemoResults) ([]byte, error) {
	if len(r.Seeds) == 0 {
		return nil, fmt.Errorf("arena plot: no seeds in the results")
	}
	arms := []string{"targeted", "control"}
	for _, s := range r.Seeds {
		for _, arm := range arms {
			a, ok := s.Arms[arm]
			if !ok {
				return nil, fmt.Errorf("arena plot: seed %d has no %s arm", s.Seed, arm)
			}
			if len(a.Rounds) == 0 {
				return nil, fmt.Errorf("arena plot: seed %d, arm %s: no rounds", s.Seed, arm)
			}
		}
	}
	metrics := []metric{
		{"held-out arena success", "success (all checks passed)", "success", func(i int, a arenaDemoArm) (float64, bool) {
			return a.Rounds[i].Success, true
		}},
		{"first call uses the ground truth's first tool", "share of rollouts", "first tool right", func(i int, a arenaDemoArm) (float64, bool) {
			if f := a.Rounds[i].FirstTool; f != nil {
				return *f, true
			}
			return 0, false
		}},
	}
	var plots []*plot.Plot
	right := plot.New()
	right.Title.Text = "paired difference, targeted − control"
	right.Y.Label.Text = "difference (points)"
	maxRound := 0
	for mi, m := range metrics {
		p := plot.New()
		p.Title.Text = m.title
		p.Y.Label.Text = m.label
		per := map[string]map[int][]float64{} // arm → round → value per seed
		diff := map[int][]float64{}
		for _, s := range r.Seeds {
			val := map[string]map[int]float64{}
			for _, arm := range arms {
				a := s.Arms[arm]
				val[arm] = map[int]float64{}
				var xy plotter.XYs
				for i, rd := range a.Rounds {
					v, ok := m.get(i, a)
					if !ok {
						continue
					}
					maxRound = max(maxRound, rd.Round)
					xy = append(xy, plotter.XY{X: float64(rd.Round), Y: v})
					val[arm][rd.Round] = v
					if per[arm] == nil {
						per[arm] = map[int][]float64{}
					}
					per[arm][rd.Round] = append(per[arm][rd.Round], v)
				}
				if len(xy) == 0 {
					continue
				}
				l, err := plotter.NewLine(xy)
				if err != nil {
					return nil, err
				}
				c := armStyle[arm]
				c.A = 0x50
				l.Color, l.Width = c, vg.Points(0.8)
				p.Add(l)
			}
			for rd, t := range val["targeted"] {
				if c, ok := val["control"][rd]; ok {
					diff[rd] = append(diff[rd], 100*(t-c))
				}
			}
		}
		if len(per) == 0 {
			continue // results from before this metric was recorded
		}
		for _, arm := range arms {
			xy, errs := meanStd(per[arm])
			l, eb, err := meanLine(xy, errs, armStyle[arm])
			if err != nil {
				return nil, err
			}
			if arm == "control" {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(l, eb)
			p.Legend.Add(arm+" (mean ± std over seeds; thin: one seed)", l)
		}
		base := map[int][]float64{}
		for _, s := range r.Seeds {
			for i, rd := range s.Baseline {
				if v, ok := m.get(i, arenaDemoArm{Rounds: s.Baseline}); ok {
					base[rd.Round] = append(base[rd.Round], v)
				}
			}
		}
		if len(base) > 0 {
			xy, errs := meanStd(base)
			l, eb, err := meanLine(xy, errs, color.NRGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff})
			if err != nil {
				return nil, err
			}
			l.Width, l.Dashes = vg.Points(1.5), []vg.Length{vg.Points(1.5), vg.Points(2.5)}
			p.Add(l, eb)
			p.Legend.Add("SFT policy, not trained further (same tasks)", l)
		}
		p.Legend.Top, p.Legend.Left = true, true
		p.Y.Min = 0
		plots = append(plots, p)
		xy, errs := meanStd(diff)
		c := color.NRGBA{A: 0xff}
		if mi == 1 {
			c = color.NRGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
		}
		l, eb, err := meanLine(xy, errs, c)
		if err != nil {
			return nil, err
		}
		for rd, ds := range diff {
			pts := plotter.XYs{}
			for _, d := range ds {
				pts = append(pts, plotter.XY{X: float64(rd) + 0.04*float64(mi*2-1), Y: d})
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			right.Add(sc)
		}
		right.Add(l, eb)
		right.Legend.Add(m.short+" (mean ± std; dots: seeds)", l)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 0}, {X: float64(maxRound), Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 0x90}, []vg.Length{vg.Points(2), vg.Points(2)}
	right.Add(zero)
	right.Legend.Top, right.Legend.Left = true, true
	plots = append(plots, right)
	for _, p := range plots {
		p.X.Label.Text = "arena round (1: the SFT policy; training between rounds)"
		p.X.Min, p.X.Max = 0.8, float64(maxRound)+0.2
		p.X.Tick.Marker = plot.ConstantTicks(roundTicks(maxRound))
	}

	img := vgimg.New(vg.Length(6*len(plots))*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(img)
	canvases := plot.Align([][]*plot.Plot{plots}, draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 8,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// meanLine is a thick line through the means with the std as error bars.
func meanLine(xy plotter.XYs, errs plotter.YErrors, c color.Color) (*plotter.Line, *plotter.YErrorBars, error) {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, nil, err
	}
	l.Color, l.Width = c, vg.Points(2.2)
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xy, errs})
	if err != nil {
		return nil, nil, err
	}
	eb.Color = c
	return l, eb, nil
}

// meanStd is, per round in order, the mean and the sample standard
// deviation (0 with one value) of the values.
func meanStd(byRound map[int][]float64) (plotter.XYs, plotter.YErrors) {
	var rounds []int
	for rd := range byRound {
		rounds = append(rounds, rd)
	}
	sort.Ints(rounds)
	var xy plotter.XYs
	var errs plotter.YErrors
	for _, rd := range rounds {
		v := byRound[rd]
		var m, ss float64
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		for _, x := range v {
			ss += (x - m) * (x - m)
		}
		sd := 0.0
		if len(v) > 1 {
			sd = math.Sqrt(ss / float64(len(v)-1))
		}
		xy = append(xy, plotter.XY{X: float64(rd), Y: m})
		errs = append(errs, struct{ Low, High float64 }{sd, sd})
	}
	return xy, errs
}

func roundTicks(n int) []plot.Tick {
	var t []plot.Tick
	for i := 1; i <= n; i++ {
		t = append(t, plot.Tick{Value: float64(i), Label: fmt.Sprint(i)})
	}
	return t
}
