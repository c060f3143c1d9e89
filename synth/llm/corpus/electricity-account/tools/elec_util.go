package tools

import "math"

func round2(x float64) float64 { return math.Round(x*100) / 100 }
