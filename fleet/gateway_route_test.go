package fleet

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestOwnerOf(t *testing.T) {
	for id, want := range map[string]string{
		"ep_0a1b2c3d.00ff":          "0a1b2c3d",
		"ep_0a1b2c3d.":              "0a1b2c3d",
		"ep_0123456789abcdef":       "", // a plain serve id: no worker
		"ep_0A1B2C3D.00":            "", // not NewServeID's
		"ep_0a1b2c3.00":             "",
		"ep_../../x.00":             "",
		"ep_0a1b2c3*.00":            "",
		"ep_0a1b2c3d>.x":            "",
		"0a1b2c3d.00":               "",
		"":                          "",
		"ep_wasmenv.serve.any.0000": "",
	} {
		if got := ownerOf(id); got != want {
			t.Errorf("ownerOf(%q) = %q, want %q", id, got, want)
		}
	}
	for range 100 {
		id := NewServeID()
		if ownerOf("ep_"+id+".123") != id {
			t.Fatalf("NewServeID %q is not read back", id)
		}
	}
}

func TestRoute(t *testing.T) {
	const ep = "ep_0a1b2c3d.ff"
	for _, c := range []struct {
		method, target, body string
		kind                 routeKind
		episode              string
	}{
		{"POST", "/v1/episodes", `{"n":3}`, routePlace, ""},
		{"POST", "/v1/episodes", `not json`, routePlace, ""},
		{"GET", "/v1/envs", "", routeAny, ""},
		{"GET", "/schema", "", routeAny, ""},
		{"POST", "/v1/episodes/" + ep + "/call", `{}`, routeOwned, ep},
		{"DELETE", "/v1/episodes/" + ep, "", routeOwned, ep},
		{"POST", "/v1/episodes/" + ep + "/mcp", `{}`, routeOwned, ep},
		{"GET", "/v1/episodes/" + ep + "/mcp", "", routeRefused, ""},
		{"GET", "/v1/episodes/ep_nope/diff", "", routeOwned, "ep_nope"},
		{"POST", "/reset", `{}`, routePlace, ""},
		{"POST", "/reset", `{"episode_id":"` + ep + `"}`, routeOwned, ep},
		{"POST", "/reset", `{"episode_id":7}`, routePlace, ""},
		{"POST", "/step", `{"episode_id":"` + ep + `","action":{}}`, routeOwned, ep},
		{"POST", "/step", `{"action":{}}`, routeAny, ""},
		{"POST", "/step", `[1,2`, routeAny, ""},
		{"GET", "/state?episode_id=" + ep, "", routeOwned, ep},
		{"GET", "/state", "", routeAny, ""},
		{"POST", "/mcp", `{"method":"tools/call","params":{"session_id":"` + ep + `"}}`, routeOwned, ep},
		{"POST", "/mcp", `{"method":"openenv/session/create","params":{}}`, routePlace, ""},
		{"POST", "/mcp", `{"method":"tools/list"}`, routeAny, ""},
		{"GET", "/health", "", routeHealth, ""},
		{"GET", "/stats", "", routeStats, ""},
		{"POST", "/nemo-gym/mini/seed_session", `{}`, routePlace, ""},
	} {
		r := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		got := route(r, []byte(c.body))
		if got.kind != c.kind || got.episode != c.episode {
			t.Errorf("%s %s %s: kind %d episode %q, want %d %q", c.method, c.target, c.body, got.kind, got.episode, c.kind, c.episode)
		}
	}
	// NeMo Gym: the session cookie names the episode.
	r := httptest.NewRequest("POST", "/nemo-gym/mini/verify", strings.NewReader(`{}`))
	r.AddCookie(&http.Cookie{Name: "wasmenv_nemo_gym_mini", Value: ep})
	if got := route(r, nil); got.kind != routeOwned || got.owner != "0a1b2c3d" || got.placeIfLost {
		t.Errorf("nemo-gym cookie: %+v", got)
	}
	r = httptest.NewRequest("POST", "/seed_session", strings.NewReader(`{}`))
	r.AddCookie(&http.Cookie{Name: "wasmenv_nemo_gym_mini", Value: ep})
	if got := route(r, nil); got.kind != routeOwned || !got.placeIfLost {
		t.Errorf("nemo-gym seed with a cookie: %+v", got)
	}
	// NeMo Gym's gymnasium_agent: reset seeds like seed_session, step and
	// close follow the cookie, at the root (where /reset and /step are
	// also OpenEnv's) as under /nemo-gym/<env>/.
	gym := `{"responses_create_params":{"input":[]},"task":"put-d"}`
	for _, c := range []struct {
		target string
		cookie bool
		kind   routeKind
		place  bool
	}{
		{"/reset", true, routeOwned, true},
		{"/reset", false, routePlace, false},
		{"/step", true, routeOwned, false},
		{"/close", true, routeOwned, false},
		{"/nemo-gym/mini/reset", true, routeOwned, true},
		{"/nemo-gym/mini/reset", false, routePlace, false},
		{"/nemo-gym/mini/step", true, routeOwned, false},
	} {
		r = httptest.NewRequest("POST", c.target, strings.NewReader(gym))
		if c.cookie {
			r.AddCookie(&http.Cookie{Name: "wasmenv_nemo_gym_mini", Value: ep})
		}
		if got := route(r, []byte(gym)); got.kind != c.kind || got.placeIfLost != c.place || (c.kind == routeOwned && got.episode != ep) {
			t.Errorf("gymnasium %s (cookie %v): %+v", c.target, c.cookie, got)
		}
	}
}

// Placement: the live worker with the fewest episodes, counting what was
// just placed on it; a worker not heard from lately is not chosen.
func TestLeastLoaded(t *testing.T) {
	g := &Gateway{opts: GatewayOptions{Stale: time.Minute}, workers: map[string]*workerLoad{}}
	if id := g.leastLoaded(1); id != "" {
		t.Fatalf("no workers: %q", id)
	}
	g.setLoad("aaaaaaaa", 5, 0)
	g.setLoad("bbbbbbbb", 1, 0)
	g.setLoad("cccccccc", 2, 0)
	g.workers["dddddddd"] = &workerLoad{episodes: 0, capacity: 10, seen: time.Now().Add(-time.Hour)}
	var got []string
	for range 5 {
		got = append(got, g.leastLoaded(1))
	}
	// b:1 -> b (2), then b/c tie at 2 -> b (3), c (3), b (4), c (4).
	want := []string{"bbbbbbbb", "bbbbbbbb", "cccccccc", "bbbbbbbb", "cccccccc"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("placements %v, want %v", got, want)
	}
	if _, ok := g.workers["dddddddd"]; ok {
		t.Error("a stale worker is kept")
	}
	// A group of n counts n: b (4 -> 14), then c (4), a (5) come first.
	if id := g.leastLoaded(10); id != "bbbbbbbb" || g.workers["bbbbbbbb"].episodes != 14 {
		t.Errorf("group of 10 on %q: %d", id, g.workers["bbbbbbbb"].episodes)
	}
	if id := g.leastLoaded(1); id != "cccccccc" {
		t.Errorf("after a group of 10 on b: %q", id)
	}

	// Capacities differ: the share in use decides, and an answer's count
	// keeps the capacity a heartbeat gave.
	g = &Gateway{opts: GatewayOptions{Stale: time.Minute}, workers: map[string]*workerLoad{}}
	g.setLoad("aaaaaaaa", 4, 8)    // half full
	g.setLoad("bbbbbbbb", 30, 100) // 30%
	g.setLoad("bbbbbbbb", 60, 0)   // 60%, from an answer
	if id := g.leastLoaded(1); id != "aaaaaaaa" {
		t.Errorf("by share of capacity: %q", id)
	}
}

// Any request shape is classified without a panic; an owned route always
// names its episode.
func FuzzRoute(f *testing.F) {
	f.Add("POST", "/step", `{"episode_id":"ep_0a1b2c3d.1"}`)
	f.Add("POST", "/mcp", `{"method":"x","params":{"session_id":["a"]}}`)
	f.Add("GET", "/v1/episodes/%2e%2e/diff", ``)
	f.Add("POST", "/reset", `{"episode_id":"ep_0a1b2c3d.`+"\x00"+`"}`)
	f.Fuzz(func(t *testing.T, method, target, body string) {
		r, err := http.NewRequest(method, "http://h"+target, strings.NewReader(body))
		if err != nil {
			return
		}
		rt := route(r, []byte(body))
		if rt.kind == routeOwned && rt.episode == "" && !strings.HasPrefix(r.URL.Path, "/v1/episodes/") {
			t.Errorf("owned route without an episode: %s %s %q", method, target, body)
		}
		if rt.owner != "" && ownerOf(rt.episode) != rt.owner {
			t.Errorf("owner %q of %q", rt.owner, rt.episode)
		}
	})
}
