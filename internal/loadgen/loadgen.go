package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmenv/wasmenv/internal/hist"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// Options configure Run.
type Options struct {
	Episodes int           // concurrent episodes, one client worker each (1000)
	Calls    int64         // total tool calls (1,000,000)
	Duration time.Duration // stop early after this long (5m)
	Tool     string        // tool to call ("get")
	Args     string        // its JSON arguments (`{"key":"a"}`)
	Task     string        // task of the episodes ("")
	// URL, when set, benchmarks a running server instead of starting one on
	// 127.0.0.1 in this process; Envs is then unused.
	URL   string
	Token string
	// ServerCPU, when set, reads the CPU seconds (user + system) of the
	// server's process, a server in another process (URL): read before and
	// after the calls, it gives Result.ServerCPUPerCall, the server's own
	// cost apart from the load generator's.
	ServerCPU func() (float64, error)
	// Socket sends the calls over GET /v1/ws WebSockets, Conns of them
	// (16, at most Episodes), the episodes spread over them, instead of
	// one HTTP request per call.
	Socket bool
	Conns  int
	// Batch, with Socket, sends the calls waiting on a connection at the
	// moment as one batch frame, answered by one frame.
	Batch bool
}

// Result is what Run measured. Latency is seen by the client: from
// sending a call to having read its response.
type Result struct {
	Episodes    int     `json:"episodes"`
	Transport   string  `json:"transport"`        // "http" or "socket"
	Conns       int     `json:"conns,omitempty"`  // socket connections
	Batch       bool    `json:"batch,omitempty"`  // socket calls sent in batch frames
	Frames      int64   `json:"frames,omitempty"` // socket frames sent (calls / frames: the mean batch)
	Calls       int64   `json:"calls"`
	Errors      int64   `json:"errors"`
	Seconds     float64 `json:"seconds"`
	CallsPerSec float64 `json:"calls_per_s"`
	CPUSeconds  float64 `json:"cpu_s"`           // process CPU (client and server) during the calls
	CPUPerCall  float64 `json:"cpu_us_per_call"` // CPUSeconds / Calls, in µs
	// The server process's CPU during the calls, with Options.ServerCPU.
	ServerCPUSeconds float64               `json:"server_cpu_s,omitempty"`
	ServerCPUPerCall float64               `json:"server_cpu_us_per_call,omitempty"` // in µs
	Latency          serve.LatencySnapshot `json:"latency_ms"`
	Server           *serve.Snapshot       `json:"server,omitempty"`
	GoroutinesIn     int                   `json:"goroutines_before"`
	GoroutinesOut    int                   `json:"goroutines_after"`
	FDsIn            int                   `json:"fds_before"`
	FDsOut           int                   `json:"fds_after"`
	EpisodesLeft     int                   `json:"episodes_left"`
	Leaks            []string              `json:"leaks,omitempty"`
}

// Run runs a closed-loop load test over loopback HTTP: Episodes workers,
// each with its own episode and keep-alive connection, issue calls until
// Calls are done or Duration passes. Afterwards it deletes the episodes,
// stops the server it started, and checks that goroutines, file
// descriptors and episodes went back to where they were.
func Run(ctx context.Context, envs []*runtime.Env, o Options) (*Result, error) {
	if o.Episodes <= 0 {
		o.Episodes = 1000
	}
	if o.Calls <= 0 {
		o.Calls = 1_000_000
	}
	if o.Duration <= 0 {
		o.Duration = 5 * time.Minute
	}
	if o.Tool == "" {
		o.Tool, o.Args = "get", `{"key":"a"}`
	}
	if o.Args == "" {
		o.Args = "{}"
	}
	if o.Conns <= 0 {
		o.Conns = 16
	}
	o.Conns = min(o.Conns, o.Episodes)
	res := &Result{Episodes: o.Episodes, Transport: "http", GoroutinesIn: goruntime.NumGoroutine(), FDsIn: countFDs()}
	if o.Socket {
		res.Transport, res.Conns, res.Batch = "socket", o.Conns, o.Batch
	}

	base := o.URL
	var srv *serve.Server
	var hs *http.Server
	if base == "" {
		var err error
		srv, err = serve.New(envs, serve.Options{MaxEpisodes: o.Episodes + 16, MaxGroup: o.Episodes, IdleTimeout: -1, Token: o.Token})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			srv.Close()
			return nil, err
		}
		hs = &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		base = "http://" + ln.Addr().String()
	}
	tr := &http.Transport{MaxIdleConns: o.Episodes + 16, MaxIdleConnsPerHost: o.Episodes + 16,
		DisableCompression: true, IdleConnTimeout: time.Minute}
	cl := &http.Client{Transport: tr, Timeout: time.Minute}
	do := func(method, path string, body []byte) ([]byte, int, error) {
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
		if err != nil {
			return nil, 0, err
		}
		if o.Token != "" {
			req.Header.Set("Authorization", "Bearer "+o.Token)
		}
		resp, err := cl.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return b, resp.StatusCode, err
	}

	// One group of identical episodes.
	create, _ := json.Marshal(map[string]any{"task": o.Task, "n": o.Episodes})
	b, code, err := do("POST", "/v1/episodes", create)
	var ids []string
	if err == nil && code == http.StatusCreated {
		var cr struct {
			Episodes []string `json:"episodes"`
		}
		err = json.Unmarshal(b, &cr)
		ids = cr.Episodes
	} else if err == nil {
		err = fmt.Errorf("create episodes: HTTP %d: %s", code, b)
	}

	var socks []*socketConn
	if err == nil && o.Socket {
		socks, err = dialSockets(ctx, base, o.Token, o.Conns, o.Batch)
	}
	var srvCPU0 float64
	if err == nil && o.ServerCPU != nil {
		srvCPU0, err = o.ServerCPU()
	}
	if err == nil {
		body, _ := json.Marshal(map[string]any{"name": o.Tool, "arguments": json.RawMessage(o.Args)})
		var left atomic.Int64
		left.Store(o.Calls)
		var done, errs atomic.Int64
		var lat hist.Hist
		var firstErr atomic.Value
		deadline := time.Now().Add(o.Duration)
		cpu0 := cpuSeconds()
		start := time.Now()
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := "/v1/episodes/" + id + "/call"
				var frame []byte
				var reply chan []byte
				if socks != nil {
					frame = fmt.Appendf(nil, `{"op":"call","episode":%q,"body":%s}`, id, body)
					reply = make(chan []byte, 1)
				}
				for left.Add(-1) >= 0 && ctx.Err() == nil {
					t := time.Now()
					if t.After(deadline) {
						return
					}
					var rb []byte
					var code int
					var err error
					if socks != nil {
						rb, err = socks[i%len(socks)].roundTrip(ctx, frame, reply)
						if err == nil && !socketCallOK(rb) {
							err = fmt.Errorf("answer %.200s", rb)
						}
					} else {
						rb, code, err = do("POST", path, body)
						if err == nil && (code != http.StatusOK || !bytes.Contains(rb, []byte(`"is_error":false`))) {
							err = fmt.Errorf("HTTP %d: %.200s", code, rb)
						}
					}
					lat.Observe(time.Since(t))
					done.Add(1)
					if err != nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			}()
		}
		wg.Wait()
		res.Seconds = time.Since(start).Seconds()
		res.CPUSeconds = cpuSeconds() - cpu0
		res.Calls, res.Errors = done.Load(), errs.Load()
		if o.ServerCPU != nil {
			var c float64
			c, err = o.ServerCPU()
			res.ServerCPUSeconds = c - srvCPU0
		}
		if res.Calls > 0 {
			res.CPUPerCall = res.CPUSeconds / float64(res.Calls) * 1e6
			res.ServerCPUPerCall = res.ServerCPUSeconds / float64(res.Calls) * 1e6
		}
		res.CallsPerSec = float64(res.Calls) / res.Seconds
		q := lat.Quantiles(0.5, 0.9, 0.99, 0.999)
		res.Latency = serve.LatencySnapshot{P50: q[0], P90: q[1], P99: q[2], P999: q[3]}
		res.Latency.Mean = lat.MeanMs()
		if e, ok := firstErr.Load().(string); ok {
			res.Leaks = append(res.Leaks, "first call error: "+e)
		}
	}

	// Clean up and look for leaks.
	for _, sc := range socks {
		res.Frames += sc.frames.Load()
	}
	closeSockets(socks)
	for _, id := range ids {
		if _, code, err := do("DELETE", "/v1/episodes/"+id, nil); err != nil || code != http.StatusOK {
			res.Leaks = append(res.Leaks, fmt.Sprintf("delete %s: HTTP %d %v", id, code, err))
			break
		}
	}
	if b, code, err2 := do("GET", "/stats", nil); err2 == nil && code == http.StatusOK {
		var snap serve.Snapshot
		if json.Unmarshal(b, &snap) == nil {
			res.Server, res.EpisodesLeft = &snap, snap.Episodes
		}
	}
	tr.CloseIdleConnections()
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		hs.Shutdown(sctx)
		cancel()
		srv.Close()
		res.EpisodesLeft = srv.Episodes()
	}
	if res.EpisodesLeft != 0 {
		res.Leaks = append(res.Leaks, fmt.Sprintf("%d episodes left", res.EpisodesLeft))
	}
	// Goroutines and descriptors wind down asynchronously; give them time.
	for i := 0; i < 100; i++ {
		res.GoroutinesOut, res.FDsOut = goruntime.NumGoroutine(), countFDs()
		if res.GoroutinesOut <= res.GoroutinesIn+2 && res.FDsOut <= res.FDsIn+2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res.GoroutinesOut > res.GoroutinesIn+2 {
		res.Leaks = append(res.Leaks, fmt.Sprintf("goroutines: %d before, %d after", res.GoroutinesIn, res.GoroutinesOut))
	}
	if res.FDsOut > res.FDsIn+2 {
		res.Leaks = append(res.Leaks, fmt.Sprintf("file descriptors: %d before, %d after", res.FDsIn, res.FDsOut))
	}
	return res, err
}

// countFDs counts this process's open file descriptors (-1 if unknown).
func countFDs() int {
	d, err := os.ReadDir("/proc/self/fd")
	if errors.Is(err, os.ErrNotExist) {
		d, err = os.ReadDir("/dev/fd")
	}
	if err != nil {
		return -1
	}
	return len(d)
}
