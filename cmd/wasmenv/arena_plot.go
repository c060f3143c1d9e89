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
		Seed int `json:"seed"`
		Arms map[string]struct {
			Rounds []struct {
				Round   int     `json:"round"`
				Success float64 `json:"success"`
			} `json:"rounds"`
		} `json:"arms"`
	} `json:"seeds"`
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

var armStyle = map[string]color.RGBA{
	"targeted": {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"control":  {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
}

func arenaDemoPlot(r *arenaDemoResults) ([]byte, error) {
	if len(r.Seeds) == 0 {
		return nil, fmt.Errorf("arena plot: no seeds in the results")
	}
	left := plot.New()
	left.Title.Text = "held-out arena success per round"
	left.X.Label.Text = "arena round (1 = the SFT policy; training between rounds)"
	left.Y.Label.Text = "success (all checks passed)"
	right := plot.New()
	right.Title.Text = "paired difference, targeted − control"
	right.X.Label.Text = "arena round"
	right.Y.Label.Text = "success difference (points)"

	arms := []string{"targeted", "control"}
	per := map[string]map[int][]float64{} // arm → round → success per seed
	diff := map[int][]float64{}
	for _, s := range r.Seeds {
		byRound := map[string]map[int]float64{}
		for _, arm := range arms {
			a, ok := s.Arms[arm]
			if !ok {
				return nil, fmt.Errorf("arena plot: seed %d has no %s arm", s.Seed, arm)
			}
			if len(a.Rounds) == 0 {
				return nil, fmt.Errorf("arena plot: seed %d, arm %s: no rounds", s.Seed, arm)
			}
			var xy plotter.XYs
			byRound[arm] = map[int]float64{}
			for _, rd := range a.Rounds {
				xy = append(xy, plotter.XY{X: float64(rd.Round), Y: rd.Success})
				byRound[arm][rd.Round] = rd.Success
				if per[arm] == nil {
					per[arm] = map[int][]float64{}
				}
				per[arm][rd.Round] = append(per[arm][rd.Round], rd.Success)
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color = color.RGBA{R: armStyle[arm].R, G: armStyle[arm].G, B: armStyle[arm].B, A: 0x60}
			l.Width = vg.Points(0.8)
			left.Add(l)
		}
		var dxy plotter.XYs
		for rd, t := range byRound["targeted"] {
			if c, ok := byRound["control"][rd]; ok {
				dxy = append(dxy, plotter.XY{X: float64(rd), Y: 100 * (t - c)})
				diff[rd] = append(diff[rd], 100*(t-c))
			}
		}
		sort.Slice(dxy, func(i, j int) bool { return dxy[i].X < dxy[j].X })
		sc, err := plotter.NewScatter(dxy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Radius = vg.Points(2.5)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		right.Add(sc)
	}
	for _, arm := range arms {
		xy, errs := meanStd(per[arm])
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = armStyle[arm], vg.Points(2.2)
		if arm == "control" {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xy, errs})
		if err != nil {
			return nil, err
		}
		eb.Color = armStyle[arm]
		left.Add(l, eb)
		left.Legend.Add(arm+" (mean ± std over seeds)", l)
	}
	xy, errs := meanStd(diff)
	ml, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	ml.Width = vg.Points(2)
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xy, errs})
	if err != nil {
		return nil, err
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: xy[0].X, Y: 0}, {X: xy[len(xy)-1].X, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 0x90}, []vg.Length{vg.Points(2), vg.Points(2)}
	right.Add(zero, ml, eb)
	right.Legend.Add("mean ± std", ml)
	right.Legend.Add("one seed", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
	left.Legend.Top, right.Legend.Top = true, true
	left.Legend.Left = true
	left.Y.Min = 0
	for _, p := range []*plot.Plot{left, right} {
		p.X.Min, p.X.Max = xy[0].X-0.2, xy[len(xy)-1].X+0.2
		p.X.Tick.Marker = plot.ConstantTicks(roundTicks(len(xy)))
	}

	img := vgimg.New(13*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(img)
	canvases := plot.Align([][]*plot.Plot{{left, right}}, draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 8,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}, dc)
	left.Draw(canvases[0][0])
	right.Draw(canvases[0][1])
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
