package cpuhog

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Start starts 2×GOMAXPROCS+2 goroutines that spin until the returned stop
// is called; stop waits for them.
func Start() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range 2*runtime.GOMAXPROCS(0) + 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				for i := range 1 << 16 {
					x ^= i * x
				}
			}
			_ = x
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}
