//go:build !unix

package serve

func cpuSeconds() float64 { return 0 }
