package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/nats-io/nats.go"
)

// Subjects of served episodes (docs/SCALING.md, "Episodes through a
// gateway"). Live calls use core NATS request/reply: no stream stores them.
const (
	serveAny   = "wasmenv.serve.any"  // any worker, queue group serveQueue
	serveQueue = "wasmenv-serve"      // the queue group of serving workers
	serveLoad  = "wasmenv.serve.load" // workers' heartbeats: {"id", "episodes", "capacity"}
	serveOwn   = "wasmenv.serve.w."   // + worker id: that worker only

	hdrMethod   = "Wasmenv-Method"   // request: the HTTP method
	hdrTarget   = "Wasmenv-Target"   // request: path and query
	hdrTimeout  = "Wasmenv-Timeout"  // request: ms the gateway waits for it
	hdrStatus   = "Wasmenv-Status"   // reply: the HTTP status
	hdrWorker   = "Wasmenv-Worker"   // reply: the worker that answered
	hdrEpisodes = "Wasmenv-Episodes" // reply: that worker's live episodes
)

// NewServeID is a fresh worker id for ServeWorker: 8 hex digits. The
// worker's server must mint episode ids as "ep_" + id + "." + random
// (serve.Options.IDPrefix = id + "."), which is how a gateway finds an
// episode's owner.
func NewServeID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ownerOf is the worker id in an episode id minted by a serving worker,
// or "" for an id of any other shape.
func ownerOf(episodeID string) string {
	rest, ok := strings.CutPrefix(episodeID, "ep_")
	if !ok {
		return ""
	}
	id, _, ok := strings.Cut(rest, ".")
	if !ok || len(id) != 8 || strings.Trim(id, "0123456789abcdef") != "" {
		return ""
	}
	return id
}

// heartbeat is what a serving worker publishes on serveLoad.
type heartbeat struct {
	ID       string `json:"id"`
	Episodes int    `json:"episodes"`
	Capacity int    `json:"capacity,omitempty"` // most live episodes; 0: unknown
}

// hopHeaders are not forwarded: they belong to one HTTP connection.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true,
	"Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Content-Length": true,
}

// copyHeaders copies the end-to-end headers of src into dst.
func copyHeaders(dst nats.Header, src http.Header) {
	for k, vs := range src {
		if hopHeaders[http.CanonicalHeaderKey(k)] || strings.HasPrefix(k, "Wasmenv-") {
			continue
		}
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

// gatewayError is the JSON body of an answer the gateway writes itself,
// shaped as serve's errors: {"error": {"code", "message"}}.
func gatewayError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}
