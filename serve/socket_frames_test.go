package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A batch frame is answered by the array of the answers its requests get
// one by one: the same requests, sent alone to a twin episode, get the
// same answers (ids aside), in the same order.
func TestSocketBatch(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1})
	sc := dialSocket(t, ts)
	a := sc.do("create", "", `{"n":2,"seed":3}`)
	var cr struct{ Episodes []string }
	if json.Unmarshal(a.Body, &cr); len(cr.Episodes) != 2 {
		t.Fatalf("create: %d %s", a.Status, a.Body)
	}
	alone, batched := cr.Episodes[0], cr.Episodes[1]
	requests := []string{
		`"op":"call","body":{"name":"put","arguments":{"key":"q","value":"v","n":1}}`,
		`"op":"call","body":{"name":"get","arguments":{"key":"q"}}`,
		`"op":"call","body":{"name":"roll"}`,
		`"op":"call","body":{"name":"nope"}`,
		`"op":"call","body":{"name":5}`,
		`"op":"dance"`,
		`"op":"diff"`,
		`"op":"score","body":{"answer":"x"}`,
		`"op":"reset","body":{"seed":4}`,
		`"op":"call","body":{"name":"roll"}`,
	}
	var frame strings.Builder
	frame.WriteString("[")
	for i, r := range requests {
		if i > 0 {
			frame.WriteString(", ")
		}
		fmt.Fprintf(&frame, `{"id":"b%d","episode":%q,%s}`, i, batched, r)
	}
	frame.WriteString(`,7]`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sc.c.Write(ctx, websocket.MessageText, []byte(frame.String())); err != nil {
		t.Fatal(err)
	}
	_, b, err := sc.c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var answers []socketAnswer
	if err := json.Unmarshal(b, &answers); err != nil || len(answers) != len(requests)+1 {
		t.Fatalf("batch answer: %v %.300s", err, b)
	}
	for i, r := range requests {
		want, err := sc.send(fmt.Sprintf(`{"id":"b%d","episode":%q,%s}`, i, alone, r))
		if err != nil {
			t.Fatal(err)
		}
		got := answers[i]
		if string(got.ID) != string(want.ID) || got.Status != want.Status ||
			socketAges.ReplaceAllString(strings.ReplaceAll(string(got.Body), batched, "EP"), "") != socketAges.ReplaceAllString(strings.ReplaceAll(string(want.Body), alone, "EP"), "") {
			t.Fatalf("request %d (%s): batched %s %d %s, alone %s %d %s", i, r, got.ID, got.Status, got.Body, want.ID, want.Status, want.Body)
		}
	}
	if last := answers[len(requests)]; last.Status != 400 || string(last.ID) != "null" {
		t.Fatalf("the batch's 7: %d %s", last.Status, last.Body)
	}
}

// A batch's answers are held until its frame is written: once they pass
// the limit of one response, the rest of the batch is answered 413 and
// not run.
func TestSocketBatchAnswerLimit(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxResponseBytes: 2000})
	ep := ts.create(`{}`)[0]
	sc := dialSocket(t, ts)
	// Each put followed by a get of what it wrote: ~350 bytes of answer.
	var frame []string
	for i := range 20 {
		if i%2 == 0 {
			frame = append(frame, fmt.Sprintf(`{"id":%d,"op":"call","episode":%q,"body":{"name":"put","arguments":{"key":"k%d","value":"%s","n":1}}}`, i, ep, i, strings.Repeat("v", 300)))
		} else {
			frame = append(frame, fmt.Sprintf(`{"id":%d,"op":"call","episode":%q,"body":{"name":"get","arguments":{"key":"k%d"}}}`, i, ep, i-1))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sc.c.Write(ctx, websocket.MessageText, []byte("["+strings.Join(frame, ",")+"]")); err != nil {
		t.Fatal(err)
	}
	_, b, err := sc.c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var answers []socketAnswer
	if err := json.Unmarshal(b, &answers); err != nil || len(answers) != 20 {
		t.Fatalf("%v %.300s", err, b)
	}
	ran := 0
	for i, a := range answers {
		if string(a.ID) != fmt.Sprint(i) {
			t.Fatalf("answer %d has id %s", i, a.ID)
		}
		switch a.Status {
		case 200:
			if ran != i {
				t.Fatalf("answer %d ran after one that did not", i)
			}
			ran++
		case 413:
			if !strings.Contains(string(a.Body), `"too_large"`) {
				t.Fatalf("answer %d: %s", i, a.Body)
			}
		default:
			t.Fatalf("answer %d: %d %s", i, a.Status, a.Body)
		}
	}
	if ran == 0 || ran == 20 {
		t.Fatalf("%d of 20 ran, want some but not all", ran)
	}
	// What ran wrote, what did not run wrote nothing.
	for i := 0; i < 20; i += 2 {
		a := sc.do("call", ep, fmt.Sprintf(`{"name":"get","arguments":{"key":"k%d"}}`, i))
		if written := strings.Contains(string(a.Body), `"is_error":false`); written != (i < ran) {
			t.Fatalf("k%d: written %v, but %d of the batch ran: %s", i, written, ran, a.Body)
		}
	}
}

// Answers larger than a pooled buffer (64 KiB) come whole, the same as
// over HTTP, and the connection goes on with small ones.
func TestSocketLargeAnswer(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1})
	sc := dialSocket(t, ts)
	sc.c.SetReadLimit(16 << 20)
	a := sc.do("create", "", `{"n":2}`)
	var cr struct{ Episodes []string }
	if json.Unmarshal(a.Body, &cr); len(cr.Episodes) != 2 {
		t.Fatalf("create: %d %s", a.Status, a.Body)
	}
	byHTTP, bySocket := cr.Episodes[0], cr.Episodes[1]
	for i := range 3 {
		put := fmt.Sprintf(`{"name":"put","arguments":{"key":"big%d","value":"%s","n":1}}`, i, strings.Repeat("x", 40<<10))
		ts.raw(context.Background(), "POST", "/v1/episodes/"+byHTTP+"/call", put)
		if a := sc.do("call", bySocket, put); a.Status != 200 {
			t.Fatalf("put: %d %.200s", a.Status, a.Body)
		}
	}
	for range 2 {
		code, want := ts.raw(context.Background(), "GET", "/v1/episodes/"+byHTTP+"/diff", "")
		a := sc.do("diff", bySocket, "")
		if len(a.Body) < 100<<10 || a.Status != code || string(a.Body) != strings.TrimRight(string(want), "\n") {
			t.Fatalf("diff: socket %d, %d bytes; HTTP %d, %d bytes", a.Status, len(a.Body), code, len(want))
		}
		if a := sc.do("call", bySocket, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 200 {
			t.Fatalf("after a large answer: %d %s", a.Status, a.Body)
		}
	}
}

// Random edits of valid frames, single and batched: every answer is JSON,
// none is a 5xx, and the connection stays open.
func TestSocketRandomFrames(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxEpisodes: 8, MaxGroup: 4})
	ep := ts.create(`{}`)[0]
	sc := dialSocket(t, ts)
	corpus := []string{
		`{"id":1,"op":"call","episode":"EP","body":{"name":"get","arguments":{"key":"a"}}}`,
		`{"op":"call","episode":"EP","body":{"name":"put","arguments":{"key":"z","value":"\u00e9\"","n":2}}}`,
		`{"id":"x","op":"step","episode":"EP","body":{"action":{"type":"final","answer":"a"}}}`,
		`{"id":[1,{"a":null}],"op":"reset","episode":"EP","body":{"seed":3}}`,
		`{"op":"create","body":{"n":2,"task":"put-d"}}`,
		`{"op":"diff","episode":"EP"}`,
		`[{"id":1,"op":"get","episode":"EP"},{"id":2,"op":"score","episode":"EP","body":{"answer":"x"}}]`,
	}
	alphabet := []byte(`{}[]",:0123456789.-+eE \ntrufalsnu\\"abcdEP`)
	rng := rand.New(rand.NewPCG(7, 35))
	for i := range 2000 {
		b := []byte(strings.ReplaceAll(corpus[rng.IntN(len(corpus))], "EP", ep))
		for range 1 + rng.IntN(3) {
			j := rng.IntN(len(b) + 1)
			switch rng.IntN(3) {
			case 0: // insert
				b = append(b[:j], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[j:]...)...)
			case 1: // delete
				if j < len(b) {
					b = append(b[:j], b[j+1:]...)
				}
			default: // replace
				if j < len(b) {
					b[j] = alphabet[rng.IntN(len(alphabet))]
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := sc.c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatalf("frame %d %q: %v", i, b, err)
		}
		_, ans, err := sc.c.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("frame %d %q: %v", i, b, err)
		}
		var one socketAnswer
		var many []socketAnswer
		if json.Unmarshal(ans, &many) != nil {
			if err := json.Unmarshal(ans, &one); err != nil {
				t.Fatalf("frame %d %q: answer not JSON: %q", i, b, ans)
			}
			many = []socketAnswer{one}
		}
		for _, a := range many {
			if a.Status < 200 || a.Status >= 500 || !json.Valid(a.Body) {
				t.Fatalf("frame %d %q: answer %d %s", i, b, a.Status, a.Body)
			}
		}
	}
}
