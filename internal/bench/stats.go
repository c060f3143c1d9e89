package bench

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Latency is a latency distribution in nanoseconds.
type Latency struct {
	P50     int64   `json:"p50"`
	P99     int64   `json:"p99"`
	Max     int64   `json:"max"`
	Mean    int64   `json:"mean"`
	N       int     `json:"n"`
	Samples []int64 `json:"-"` // sorted
}

func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := make([]int64, len(ds))
	var sum int64
	for i, d := range ds {
		s[i] = int64(d)
		sum += int64(d)
	}
	slices.Sort(s)
	return Latency{P50: pct(s, 0.50), P99: pct(s, 0.99), Max: s[len(s)-1], Mean: sum / int64(len(s)), N: len(s), Samples: s}
}

func pct(sorted []int64, p float64) int64 {
	i := int(p * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// rss returns the resident set size of this process after a full GC that
// returns freed memory to the OS.
func rss() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.Sys - m.HeapReleased)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func fmtNs(ns int64) string {
	d := time.Duration(ns)
	switch {
	case ns == 0:
		return "-"
	case d < 10*time.Microsecond:
		return strconv.FormatFloat(float64(ns)/1e3, 'f', 2, 64) + " µs"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) + " µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

func fmtBytes(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n < 10<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 10<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	case n < 10<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 2, 64) + " GiB"
}
