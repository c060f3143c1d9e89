package fleet

import (
	"encoding/json"
	"net/http"
	"strings"
)

type routeKind int

const (
	routeAny     routeKind = iota // any worker: no episode involved
	routePlace                    // creates episodes: the least loaded worker
	routeOwned                    // on one episode: its owner
	routeRefused                  // not forwarded
	routeHealth                   // answered by the gateway
	routeStats                    // answered by the gateway
)

type gatewayRoute struct {
	kind    routeKind
	episode string // routeOwned: the episode id
	owner   string // routeOwned: its worker, "" if the id is not a fleet's
	n       int    // routePlace: episodes it creates, if known
	// routeOwned: a lost owner is no error, place the request instead
	// (NeMo Gym's seed_session replaces the cookie's episode).
	placeIfLost bool
	status      int    // routeRefused
	msg         string // routeRefused
}

// route classifies a request by the routes of serve.Server (serve/server.go,
// serve/nemogym.go). Only the fields that name an episode are read from a
// body; a body that does not parse goes to any worker, whose answer is the
// error serve gives.
func route(r *http.Request, body []byte) gatewayRoute {
	p := r.URL.Path
	owned := func(id string) gatewayRoute {
		return gatewayRoute{kind: routeOwned, episode: id, owner: ownerOf(id)}
	}
	switch {
	case p == "/health" && r.Method == http.MethodGet:
		return gatewayRoute{kind: routeHealth}
	case p == "/stats" && r.Method == http.MethodGet:
		return gatewayRoute{kind: routeStats}
	case p == "/v1/episodes" && r.Method == http.MethodPost:
		var req struct {
			N int `json:"n"`
		}
		json.Unmarshal(body, &req)
		return gatewayRoute{kind: routePlace, n: req.N}
	case strings.HasPrefix(p, "/v1/episodes/"):
		id, rest, _ := strings.Cut(strings.TrimPrefix(p, "/v1/episodes/"), "/")
		if rest == "mcp" && r.Method == http.MethodGet {
			return gatewayRoute{kind: routeRefused, status: http.StatusMethodNotAllowed,
				msg: "the gateway does not forward MCP's standalone event stream; POST requests work"}
		}
		return owned(id)
	case p == "/reset" && r.Method == http.MethodPost:
		if id := bodyField(body, "episode_id"); id != "" {
			return owned(id)
		}
		if rt, ok := nemoGymSession(r, true); ok { // NeMo Gym's gymnasium reset at a root
			return rt
		}
		return gatewayRoute{kind: routePlace, n: 1}
	case p == "/step" && r.Method == http.MethodPost:
		if id := bodyField(body, "episode_id"); id != "" {
			return owned(id)
		}
		if rt, ok := nemoGymSession(r, false); ok { // NeMo Gym's gymnasium step at a root
			return rt
		}
	case p == "/state" && r.Method == http.MethodGet:
		if id := r.URL.Query().Get("episode_id"); id != "" {
			return owned(id)
		}
	case p == "/mcp" && r.Method == http.MethodPost:
		var req struct {
			Method string `json:"method"`
			Params struct {
				SessionID string `json:"session_id"`
			} `json:"params"`
		}
		json.Unmarshal(body, &req)
		if req.Params.SessionID != "" {
			return owned(req.Params.SessionID)
		}
		if req.Method == "openenv/session/create" {
			return gatewayRoute{kind: routePlace, n: 1}
		}
	default:
		// NeMo Gym: the session cookie names the episode; seed_session
		// and the gymnasium reset under /nemo-gym/<env>/ make a new one.
		seed := r.Method == http.MethodPost && (strings.HasSuffix(p, "/seed_session") ||
			strings.HasPrefix(p, "/nemo-gym/") && strings.HasSuffix(p, "/reset"))
		if rt, ok := nemoGymSession(r, seed); ok {
			return rt
		}
		if seed {
			return gatewayRoute{kind: routePlace, n: 1}
		}
	}
	return gatewayRoute{kind: routeAny}
}

// nemoGymSession routes a request to the owner of its NeMo Gym session
// cookie's episode; seed: a lost owner is no error (the request makes a
// new episode). False when the request has no such cookie.
func nemoGymSession(r *http.Request, seed bool) (gatewayRoute, bool) {
	for _, c := range r.Cookies() {
		if strings.HasPrefix(c.Name, "wasmenv_nemo_gym_") && ownerOf(c.Value) != "" {
			return gatewayRoute{kind: routeOwned, episode: c.Value, owner: ownerOf(c.Value), placeIfLost: seed}, true
		}
	}
	return gatewayRoute{}, false
}

// bodyField is a top-level string field of a JSON object, or "".
func bodyField(body []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	var s string
	json.Unmarshal(m[name], &s)
	return s
}
