package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/runtime"
)

// The soak's big episodes and /mcp sockets (issue 25): they run in TestSoak
// beside its other clients; see soak_test.go.

// bigMiniEnv is the mini environment under another name ("mini-big") and
// a larger write budget, for the soak's big episodes.
func bigMiniEnv(t testing.TB, writeMB int) *runtime.Env {
	t.Helper()
	miniEnv(t) // builds the bundle once
	b := *miniBundle
	b.Manifest.Name = "mini-big"
	e, err := runtime.LoadBundle(context.Background(), &b, runtime.Options{MaxWriteMB: writeMB})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// soakBig counts what the big writers and /mcp sockets saw.
type soakBig struct {
	episodes, written, diffs413, hashes, hashErrs, bad atomic.Int64
	mcpCalls, mcpErrs, mcpBusy, mcpIdleCut, memRefused atomic.Int64
	mcpLastErr, lastBad                                atomic.Value // string
}

func (b *soakBig) badAnswer(what string, code int) {
	b.bad.Add(1)
	b.lastBad.Store(fmt.Sprintf("%s: HTTP %d", what, code))
}

func (b *soakBig) mcpErr(what string) {
	b.mcpErrs.Add(1)
	b.mcpLastErr.Store(what)
}

// bigWriter writes 900 KB values into an episode of "mini-big" until its
// write budget refuses, asks for its diff (over the response cap: 413)
// and its state hash, then deletes it.
func (b *soakBig) bigWriter(c *soakClient, deadline time.Time) {
	code, m := c.do("POST", "/v1/episodes", `{"env":"mini-big"}`)
	if code == http.StatusTooManyRequests {
		b.memRefused.Add(1)
		time.Sleep(100 * time.Millisecond)
		return
	}
	if code != http.StatusCreated {
		b.badAnswer("create", code)
		return
	}
	b.episodes.Add(1)
	id := m["episodes"].([]any)[0].(string)
	defer c.do("DELETE", "/v1/episodes/"+id, "")
	big := strings.Repeat("y", 900_000)
	for k := 0; time.Now().Before(deadline); k++ {
		_, m := c.do("POST", "/v1/episodes/"+id+"/call", fmt.Sprintf(`{"name":"put","arguments":{"key":"b%d","value":%q}}`, k, big))
		if m["outcome"] != string(runtime.OutcomeOK) {
			break // the write budget, or a timeout under load
		}
		b.written.Add(900_000)
	}
	switch code, _ := c.do("GET", "/v1/episodes/"+id+"/diff", ""); code {
	case http.StatusRequestEntityTooLarge:
		b.diffs413.Add(1)
	case http.StatusOK, http.StatusServiceUnavailable, http.StatusInsufficientStorage, http.StatusUnprocessableEntity:
	default:
		b.badAnswer("diff", code)
	}
	code, m = c.do("GET", "/state?episode_id="+id, "")
	switch {
	case code != http.StatusOK:
		b.badAnswer("state", code)
	case m["state_hash"] != nil:
		b.hashes.Add(1)
	default:
		b.hashErrs.Add(1) // out of SQL time or memory under load: said, not hidden
	}
}

// mcpSocket opens a GET /mcp WebSocket, makes five calls on its episode,
// and closes it (the episode goes with it); idle, it makes one call and
// waits for the server to close the socket for idleness.
func (b *soakBig) mcpSocket(url, token string, idle bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1)+"/mcp?env=mini",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		time.Sleep(50 * time.Millisecond) // socket cap: allowed
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(4 << 20)
	calls := 5
	if idle {
		calls = 1
	}
	for k := range calls {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"put","arguments":{"key":"m%d","value":%q}}}`,
			k+1, k, strings.Repeat("z", 100_000))
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			b.mcpErr("write: " + err.Error())
			return
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			b.mcpErr("read: " + err.Error())
			return
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.mcpErr(fmt.Sprintf("answer not JSON: %.200q", data))
			return
		}
		b.mcpCalls.Add(1)
		if m["error"] != nil {
			msg := fmt.Sprint(m["error"].(map[string]any)["message"])
			switch {
			case strings.Contains(msg, "memory cap"):
				b.memRefused.Add(1)
				return
			case strings.Contains(msg, "no call slot free"):
				b.mcpBusy.Add(1) // under load: allowed, reported
				return
			}
			b.mcpErr(fmt.Sprint(m["error"]))
			return
		}
	}
	if idle {
		if _, _, err := c.Read(ctx); err != nil && ctx.Err() == nil {
			b.mcpIdleCut.Add(1)
		}
		return
	}
	c.Close(websocket.StatusNormalClosure, "")
}
