package runtime

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
)

// What parking costs a step, and what it saves between steps (park.go).
//
//	go test -run '^$' -bench 'Parked' -count 6 ./runtime

// BenchmarkParkedStep times one call (a point read, or a single-row write;
// a reset every 20 calls, as `wasmenv bench` does) on an episode that keeps
// its connection (kept), one that parks after every step and gets the same
// connection back (same: no other episode took it, its cache is warm), and
// two episodes in turn on one connection (swap: each step gives the
// connection the other's image, and SQLite reads its pages again).
func BenchmarkParkedStep(b *testing.B) {
	for _, tool := range []string{"get_order", "set_order_status"} {
		for _, mode := range []string{"kept", "same", "swap"} {
			b.Run(tool+"/"+mode, func(b *testing.B) {
				e := loadBenchEnv(b)
				if mode != "kept" {
					e.maxConns = 0
				}
				eps := []*Episode{newEpisode(b, e, "", 1), newEpisode(b, e, "", 2)}
				if mode != "swap" {
					eps = eps[:1]
				}
				args := make([][]byte, 20)
				for i := range args {
					args[i] = []byte(`{"order_id":` + strconv.Itoa(17+i*397) + `}`)
					if tool == "set_order_status" {
						args[i] = []byte(`{"order_id":` + strconv.Itoa(17+i*397) + `,"status":"cancelled"}`)
					}
				}
				i := 0
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					ep := eps[i%len(eps)]
					benchCall(b, ep, tool, args[(i/len(eps))%len(args)])
					if i++; i%(20*len(eps)) == 0 {
						for _, ep := range eps {
							if err := ep.Reset(); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkParkedActiveRSS is BenchmarkEpisodeActiveRSS's after-diff row
// (one write, one read and a DiffAndHash per episode, RSS per episode)
// with n episodes under MaxConns (the default, 4 per processor and at least 16, and 64): all but
// MaxConns of them parked.
func BenchmarkParkedActiveRSS(b *testing.B) {
	for _, c := range []struct{ max, n int }{{defaultMaxConns(), 1000}, {defaultMaxConns(), 10000}, {64, 1000}, {64, 10000}} {
		b.Run(fmt.Sprintf("MaxConns=%d/%d", c.max, c.n), func(b *testing.B) {
			n := c.n
			e := loadBenchEnv(b)
			e.maxConns = int64(c.max)
			var per float64
			for b.Loop() {
				e.CloseIdleConns()
				before := residentBytes(b)
				eps := make([]*Episode, 0, n)
				for i := range n {
					ep, err := e.NewEpisode("", 1)
					if err != nil {
						b.Fatal(err)
					}
					benchCall(b, ep, "set_order_status", []byte(`{"order_id":`+strconv.Itoa(1+i*13%4000)+`,"status":"cancelled"}`))
					benchCall(b, ep, "get_order", []byte(`{"order_id":`+strconv.Itoa(1+i*17%4000)+`}`))
					if _, _, err := ep.DiffAndHash(); err != nil {
						b.Fatal(err)
					}
					eps = append(eps, ep)
				}
				per = float64(residentBytes(b)-before) / float64(n)
				held := e.liveConns.Load()
				for _, ep := range eps {
					ep.Close()
				}
				b.ReportMetric(float64(held), "conns-held")
			}
			b.ReportMetric(per, "active-B/episode")
		})
	}
}

// cpuTime is the process's CPU time (user and system) in ns: on a shared
// machine it moves less with the load than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkParkedThroughput is `wasmenv bench`'s N = 1000 row: 1,000
// episodes on 1,000 goroutines, each stepping `wasmenv bench`'s mix (70%
// get_order, 20% set_order_status, 10% list_orders; a reset every 20
// steps), with every episode keeping its connection (kept), under the
// default MaxConns (4 per processor, at least 16) and under MaxConns 64
// (parked). ns/op is wall time
// per step over all goroutines, cpu-ns/step the process's CPU time (the
// first step of each episode, which opens or takes its connection,
// included).
func BenchmarkParkedThroughput(b *testing.B) {
	for _, mode := range []string{"kept", "default", "parked", "256"} {
		b.Run(mode, func(b *testing.B) {
			e := loadBenchEnv(b)
			switch mode {
			case "kept":
				e.maxConns = -1
			case "parked":
				e.maxConns = 64
			case "256": // the default until the fourth pass of issue 20
				e.maxConns = 256
			}
			b.SetParallelism(500) // × GOMAXPROCS 2: 1,000 episodes
			var seed atomic.Int64
			cpu0 := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				s := seed.Add(1)
				ep := newEpisode(b, e, "", s)
				defer ep.Close()
				r := rand.New(rand.NewPCG(uint64(s), 5))
				for n := 1; pb.Next(); n++ {
					id := strconv.Itoa(1 + r.IntN(8000))
					switch p := r.IntN(10); {
					case p < 7:
						benchCall(b, ep, "get_order", []byte(`{"order_id":`+id+`}`))
					case p < 9:
						benchCall(b, ep, "set_order_status", []byte(`{"order_id":`+id+`,"status":"shipped"}`))
					default:
						benchCall(b, ep, "list_orders", []byte(`{"user_id":`+strconv.Itoa(1+r.IntN(1000))+`,"limit":10}`))
					}
					if n%20 == 0 {
						if err := ep.Reset(); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/step")
		})
	}
}
