//go:build !unix

package loadgen

func cpuSeconds() float64 { return 0 }
