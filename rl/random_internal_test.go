package rl

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A schema's huge or extreme bounds give a number within them, never a
// panic (int(max(1, hi-lo)) overflowed to a negative bound for rand.IntN).
func TestRandomNumberHugeBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []schema{
		{Maximum: f(1e300)},
		{Minimum: f(-1e308), Maximum: f(1e308)},
		{Minimum: f(math.MaxInt64)},
		{Minimum: f(5), Maximum: f(5)},
		{Minimum: f(7), Maximum: f(3)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var o observed
	for _, s := range cases {
		for range 100 {
			n := o.number(rng, &s)
			if math.IsNaN(n) || math.IsInf(n, 0) {
				t.Fatalf("min %v max %v: %v", s.Minimum, s.Maximum, n)
			}
			if s.Minimum != nil && s.Maximum != nil && *s.Minimum <= *s.Maximum && (n < *s.Minimum || n > *s.Maximum) {
				t.Fatalf("min %v max %v: %v out of bounds", *s.Minimum, *s.Maximum, n)
			}
		}
	}
}
