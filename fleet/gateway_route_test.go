package fleet

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
		{"GET", "/mcp", "", routeRefused, ""},
		{"GET", "/ws", "", routeRefused, ""},
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
}
