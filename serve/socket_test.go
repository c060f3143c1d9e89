package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/runtime"
)

// socketAges matches an episode's age, which differs between two requests.
var socketAges = regexp.MustCompile(`"age_s":[0-9.e+-]+`)

// socketClient is a /v1/ws connection of a test.
type socketClient struct {
	t *testing.T
	c *websocket.Conn
	n int
}

func dialSocket(t *testing.T, ts *testServer) *socketClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := &websocket.DialOptions{}
	if ts.token != "" {
		o.HTTPHeader = http.Header{"Authorization": {"Bearer " + ts.token}}
	}
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/v1/ws", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return &socketClient{t: t, c: c}
}

// socketAnswer is an answer frame, its body kept as sent.
type socketAnswer struct {
	ID         json.RawMessage `json:"id"`
	Status     int             `json:"status"`
	RetryAfter int             `json:"retry_after"`
	Body       json.RawMessage `json:"body"`
}

// send writes one frame as it is and reads its answer.
func (sc *socketClient) send(frame string) (socketAnswer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sc.c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		return socketAnswer{}, err
	}
	_, b, err := sc.c.Read(ctx)
	if err != nil {
		return socketAnswer{}, err
	}
	var a socketAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		sc.t.Fatalf("answer not JSON: %q", b)
	}
	return a, nil
}

// do sends op on episode with body (JSON text, "" for none), checking
// that the answer carries the request's id.
func (sc *socketClient) do(op, episode, body string) socketAnswer {
	sc.t.Helper()
	sc.n++
	frame := fmt.Sprintf(`{"id":%d,"op":%q`, sc.n, op)
	if episode != "" {
		frame += fmt.Sprintf(`,"episode":%q`, episode)
	}
	if body != "" {
		frame += `,"body":` + body
	}
	a, err := sc.send(frame + "}")
	if err != nil {
		sc.t.Fatalf("%s: %v", frame, err)
	}
	if string(a.ID) != fmt.Sprint(sc.n) {
		sc.t.Fatalf("%s: answer id %s", frame, a.ID)
	}
	return a
}

// The socket answers every request of a long random mix exactly as the
// HTTP routes answer it: same status, same body byte for byte (episode and
// group ids aside), on two episodes created alike, one per transport.
func TestSocketMatchesHTTP(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxSteps: 50})
	sc := dialSocket(t, ts)
	create := `{"task":"put-d","seed":7}`
	codeH, bodyH := ts.raw(context.Background(), "POST", "/v1/episodes", create)
	a := sc.do("create", "", create)
	var ch, cs struct {
		Group    string   `json:"group"`
		Episodes []string `json:"episodes"`
	}
	if json.Unmarshal(bodyH, &ch) != nil || json.Unmarshal(a.Body, &cs) != nil || len(ch.Episodes) != 1 || len(cs.Episodes) != 1 {
		t.Fatalf("create: HTTP %d %s; socket %d %s", codeH, bodyH, a.Status, a.Body)
	}
	epH, epS := ch.Episodes[0], cs.Episodes[0]
	norm := func(b []byte, ep, grp string) string {
		s := strings.TrimRight(string(b), "\n")
		s = strings.ReplaceAll(strings.ReplaceAll(s, ep, "EP"), grp, "GRP")
		return socketAges.ReplaceAllString(s, `"age_s":0`)
	}
	if codeH != a.Status || norm(bodyH, epH, ch.Group) != norm(a.Body, epS, cs.Group) {
		t.Fatalf("create differs:\nHTTP   %d %s\nsocket %d %s", codeH, bodyH, a.Status, a.Body)
	}

	deep := strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)
	calls := []string{
		`{"name":"get","arguments":{"key":"a"}}`, `{"name":"get","arguments":{"key":"zz"}}`,
		`{"name":"put","arguments":{"key":"k%d","value":"v%d","n":%d}}`, `{"name":"list","arguments":{}}`,
		`{"name":"delete","arguments":{"keys":["a","k%d"]}}`, `{"name":"roll"}`, `{"name":"nope","arguments":{}}`,
		`{"name":"get","arguments":{"key":5}}`, `{"name":5}`, `{"name":"get","arguments":{"key":"a"},"x":1}`,
		`{"arguments":{"key":"b"},"name":"get"}`, `{"name":"get","arguments":"{\"key\":\"b\"}"}`,
		`{"name":"g\u0065t","arguments":{"key":"c"}}`, `null`, `[]`, `{}`, `{"name":"get","arguments":` + deep + `}`,
	}
	others := []struct{ op, method, suffix, body string }{
		{"step", "POST", "/step", `{"action":{"type":"call_tool","tool_name":"get","arguments":{"key":"b"}}}`},
		{"step", "POST", "/step", `{"action":{"type":"final","answer":"done %d"}}`},
		{"step", "POST", "/step", `{"action":7}`},
		{"score", "POST", "/score", `{"answer":"x%d"}`},
		{"score", "POST", "/score", `{"answer":3}`},
		{"diff", "GET", "/diff", ``},
		{"reset", "POST", "/reset", `{"seed":%d}`},
		{"reset", "POST", "/reset", ``},
		{"get", "GET", "", ``},
	}
	rng := rand.New(rand.NewPCG(35, 3))
	ctx := context.Background()
	for i := range 1500 {
		op, method, path, body := "call", "POST", "/call", ""
		if rng.IntN(5) == 0 {
			o := others[rng.IntN(len(others))]
			op, method, path, body = o.op, o.method, o.suffix, o.body
		} else {
			body = calls[rng.IntN(len(calls))]
		}
		if strings.Contains(body, "%d") {
			n := rng.IntN(20)
			body = strings.ReplaceAll(body, "%d", fmt.Sprint(n))
		}
		idH, idS := epH, epS
		if rng.IntN(40) == 0 {
			idH, idS = "ep_nothere", "ep_nothere"
		}
		codeH, bodyH := ts.raw(ctx, method, "/v1/episodes/"+idH+path, body)
		a := sc.do(op, idS, body)
		if codeH != a.Status || norm(bodyH, epH, ch.Group) != norm(a.Body, epS, cs.Group) {
			t.Fatalf("request %d, %s %s %s differs:\nHTTP   %d %s\nsocket %d %s", i, op, idS, body, codeH, bodyH, a.Status, a.Body)
		}
	}
}

// A client's mistakes in a frame get the HTTP route's status and error
// body and leave the connection open.
func TestSocketClientMistakes(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxBodyBytes: 1 << 10, MaxGroup: 5})
	sc := dialSocket(t, ts)
	ep := ts.create(`{}`)[0]
	for _, c := range []struct {
		frame, code string
		status      int
	}{
		{`{"op":`, "bad_request", 400},
		{`not json`, "bad_request", 400},
		{``, "bad_request", 400},
		{`1`, "bad_request", 400},
		{`[]`, "bad_request", 400},
		{`[{"op":"get"}`, "bad_request", 400},
		{`[` + strings.Repeat(`{},`, 5) + `{}]`, "bad_request", 400}, // over MaxGroup
		{`{"op":"dance"}`, "bad_request", 400},
		{`{"op":"call","body":{"name":"get"}}`, "bad_request", 400},
		{`{"op":"create","episode":"` + ep + `"}`, "bad_request", 400},
		{`{"op":"call","episode":"` + ep + `","extra":1}`, "bad_request", 400},
		{`{"op":"call","episode":"ep_gone","body":{"name":"get"}}`, "unknown_episode", 404},
		{`{"op":"call","episode":"` + ep + `","body":{"name":"get","arguments":{"key":"` + strings.Repeat("x", 2000) + `"}}}`, "too_large", 413},
		{`{"op":"call","episode":"../../envs","body":{}}`, "unknown_episode", 404},
		{`{"op":"delete","episode":"../../envs"}`, "unknown_episode", 404},
		{`{"op":"step","episode":".."}`, "unknown_episode", 404},
		{`{"op":"get","episode":"."}`, "unknown_episode", 404},
		{`{"op":"diff","episode":"a b?c#d"}`, "unknown_episode", 404},
		{`{"op":"call","episode":"` + ep + `","body":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, "bad_request", 400},
	} {
		a, err := sc.send(c.frame)
		if err != nil {
			t.Fatalf("%.80s: %v", c.frame, err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(a.Body, &body)
		if a.Status != c.status || body.Error.Code != c.code || body.Error.Message == "" {
			t.Errorf("%.80s: %d %s, want %d %s", c.frame, a.Status, a.Body, c.status, c.code)
		}
	}
	// Still open: a call works, a binary frame too.
	if a := sc.do("call", ep, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 200 {
		t.Fatalf("after the mistakes: %d %s", a.Status, a.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sc.c.Write(ctx, websocket.MessageBinary, []byte(`{"op":"get","episode":"`+ep+`"}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := sc.c.Read(ctx); err != nil || !strings.Contains(string(b), `"status":200`) {
		t.Fatalf("binary frame: %s %v", b, err)
	}
	// A frame over MaxBodyBytes plus the envelope: TestSocketOversizedFrameKeepsConnection.
	if n := ts.srv.Episodes(); n != 1 {
		t.Fatalf("%d episodes, want the HTTP one", n)
	}
}

// The episodes a connection creates are deleted when it ends, whether the
// client closes it, drops it, or leaves it idle; those created over HTTP
// stay. Only the idle case has a short idle timeout, long enough for its
// few requests on a loaded machine: a stall of the test past it must not
// end the connection of the other cases.
func TestSocketDropDeletesEpisodes(t *testing.T) {
	for _, end := range []string{"close", "drop", "idle"} {
		o := Options{IdleTimeout: -1}
		if end == "idle" {
			o.WSIdleTimeout = 3 * time.Second
		}
		ts := newTestServer(t, o)
		kept := ts.create(`{}`)[0]
		waitEpisodes := func(want int) {
			t.Helper()
			waitFor(t, fmt.Sprintf("%s: %d episodes", end, want), func() bool { return ts.srv.Episodes() == want })
		}
		sc := dialSocket(t, ts)
		a := sc.do("create", "", `{"n":3}`)
		var cr struct{ Episodes []string }
		if json.Unmarshal(a.Body, &cr); a.Status != 201 || len(cr.Episodes) != 3 {
			t.Fatalf("%s: create %d %s", end, a.Status, a.Body)
		}
		if a := sc.do("delete", cr.Episodes[0], ""); a.Status != 200 {
			t.Fatalf("%s: delete %d %s", end, a.Status, a.Body)
		}
		if a := sc.do("call", kept, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 200 {
			t.Fatalf("%s: call on the HTTP episode %d %s", end, a.Status, a.Body)
		}
		waitEpisodes(3)
		switch end {
		case "close":
			sc.c.Close(websocket.StatusNormalClosure, "")
		case "drop":
			sc.c.CloseNow()
		case "idle":
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, _, err := sc.c.Read(ctx)
			cancel()
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("idle: %v, want close 1008", err)
			}
		}
		waitEpisodes(1)
		if code, _ := ts.do("GET", "/v1/episodes/"+kept, ""); code != 200 {
			t.Fatalf("%s: the HTTP episode is gone (%d)", end, code)
		}
	}
}

// The socket is behind the server's token and its clients' walls: a
// connection reaches only its own client's episodes, and Close ends it.
func TestSocketAuthAndClose(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, Clients: []Client{{Name: "a", Token: "ta"}, {Name: "b", Token: "tb"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(ts.url, "http") + "/v1/ws"
	if _, resp, err := websocket.Dial(ctx, url, nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("dial without a token: %v", err)
	}
	ts.token = "ta"
	sa := dialSocket(t, ts)
	ep := ts.create(`{}`)[0]
	ts.token = "tb"
	sb := dialSocket(t, ts)
	if a := sa.do("call", ep, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 200 {
		t.Fatalf("owner: %d %s", a.Status, a.Body)
	}
	if a := sb.do("call", ep, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 404 {
		t.Fatalf("other client: %d %s, want 404", a.Status, a.Body)
	}
	ts.srv.Close()
	if _, _, err := sa.c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("after Close: %v, want close 1001", err)
	}
}

// A call that runs out of time on the socket is the timeout outcome, as
// on HTTP, whether it waited for its episode or ran past the server's call
// timeout; the next call on the same connection has its full time again.
func TestSocketCallTimeout(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, CallTimeout: 300 * time.Millisecond})
	ep := ts.create(`{}`)[0]
	s1, s2 := dialSocket(t, ts), dialSocket(t, ts)
	answers := make(chan socketAnswer, 2)
	for _, sc := range []*socketClient{s1, s2} {
		go func() {
			a, err := sc.send(`{"op":"call","episode":"` + ep + `","body":{"name":"abuse","arguments":{"mode":"loop"}}}`)
			if err != nil {
				t.Error(err)
			}
			answers <- a
		}()
	}
	for range 2 {
		a := <-answers
		var r runtime.Result
		if json.Unmarshal(a.Body, &r); a.Status != 200 || r.Outcome != runtime.OutcomeTimeout || !r.IsError {
			t.Errorf("%d %s, want 200 and the timeout outcome", a.Status, a.Body)
		}
	}
	for _, sc := range []*socketClient{s1, s2} {
		for range 3 {
			a := sc.do("call", ep, `{"name":"get","arguments":{"key":"a"}}`)
			var r runtime.Result
			if json.Unmarshal(a.Body, &r); a.Status != 200 || r.IsError {
				t.Fatalf("after the timeouts: %d %s", a.Status, a.Body)
			}
		}
	}
}

// The socket's reusable call context: a call's deadline ends that call
// only, and the session's end ends every call.
func TestCallContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	c := newCallContext(withClient(parent, "alice"))
	defer c.close()
	ctx := c.start(10 * time.Millisecond)
	<-ctx.Done()
	if ctx.Err() != context.DeadlineExceeded {
		t.Fatalf("after the deadline: %v", ctx.Err())
	}
	c.finish()
	ctx = c.start(time.Hour)
	if ctx.Err() != nil || clientFrom(ctx) != "alice" {
		t.Fatalf("re-armed: %v, client %q", ctx.Err(), clientFrom(ctx))
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Fatalf("deadline %v %v", d, ok)
	}
	c.finish()
	cancel()
	<-c.Done()
	if c.start(time.Hour).Err() != context.Canceled {
		t.Fatalf("after the session: %v", c.Err())
	}
}

// OpenEnv's /ws session deletes its episode when the connection drops
// without a close message, as /v1/ws does (this existed before /v1/ws;
// the test pins it).
func TestOpenEnvWebSocketDropDeletesEpisode(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{`{"type":"reset","data":{}}`, `{"type":"step","data":{"type":"call_tool","tool_name":"get","arguments":{"key":"a"}}}`} {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if _, b, err := c.Read(ctx); err != nil || !strings.Contains(string(b), `"observation"`) {
			t.Fatalf("%s: %s %v", msg, b, err)
		}
	}
	if n := ts.srv.Episodes(); n != 1 {
		t.Fatalf("%d episodes during the session", n)
	}
	c.CloseNow()
	for deadline := time.Now().Add(30 * time.Second); ts.srv.Episodes() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d episodes left after the connection dropped", ts.srv.Episodes())
		}
	}
}

// Where HTTP sends Retry-After, the answer frame has retry_after.
func TestSocketRetryAfter(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxEpisodes: 1})
	sc := dialSocket(t, ts)
	if a := sc.do("create", "", ``); a.Status != 201 || a.RetryAfter != 0 {
		t.Fatalf("first create: %d %d %s", a.Status, a.RetryAfter, a.Body)
	}
	if a := sc.do("create", "", `{}`); a.Status != 429 || a.RetryAfter != 1 || !strings.Contains(string(a.Body), `"capacity"`) {
		t.Fatalf("create over capacity: %d retry_after %d %s", a.Status, a.RetryAfter, a.Body)
	}
}
