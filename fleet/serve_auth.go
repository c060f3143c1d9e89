package fleet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/nats-io/nats.go"
)

// A gateway and its serving workers share the fleet key (GatewayOptions.
// FleetKey, ServeWorker.FleetKey); with it (docs/SCALING.md, "Securing the
// fleet"):
//
//   - a worker signs its heartbeats and its answers: a gateway places
//     episodes only on workers whose signed heartbeat it heard, and relays
//     only signed answers (an impostor in the queue group gets requests
//     but its answers are refused, 502);
//   - the gateway seals the headers that carry a client's credentials
//     (Authorization, Cookie) with AES-256-GCM under a key derived from the
//     fleet key: they do not cross NATS in clear, and only a key holder
//     reads them.
//
// Who may subscribe to the requests at all is NATS's business: the gateway
// and serving roles of deploy/nats/fleet-auth.conf.
const (
	hdrSealed = "Wasmenv-Sealed" // request: the sealed credential headers
	hdrMAC    = "Wasmenv-Mac"    // heartbeat, answer: HMAC-SHA256 under the fleet key
)

// sealedHeaders are the request headers that carry a client's credentials.
var sealedHeaders = []string{"Authorization", "Cookie"}

// sealKey derives the sealing key from the fleet key, so that the key that
// signs is not the key that encrypts.
func sealKey(fleetKey []byte) []byte {
	h := hmac.New(sha256.New, fleetKey)
	h.Write([]byte("wasmenv gateway: sealed headers"))
	return h.Sum(nil)
}

func gcm(fleetKey []byte) cipher.AEAD {
	block, _ := aes.NewCipher(sealKey(fleetKey)) // 32 bytes: AES-256
	aead, _ := cipher.NewGCM(block)
	return aead
}

// seal moves the credential headers of h into one sealed header bound to
// the request's method and target (no key: nothing moves).
func seal(fleetKey []byte, h nats.Header) {
	if fleetKey == nil {
		return
	}
	creds := map[string][]string{}
	for _, k := range sealedHeaders {
		if vs := h.Values(k); len(vs) > 0 {
			creds[k] = vs
			h.Del(k)
		}
	}
	if len(creds) == 0 {
		return
	}
	plain, _ := json.Marshal(creds)
	aead := gcm(fleetKey)
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, plain, []byte(h.Get(hdrMethod)+" "+h.Get(hdrTarget)))
	h.Set(hdrSealed, base64.RawStdEncoding.EncodeToString(sealed))
}

// unseal restores the credential headers of a request into into; false when
// a sealed header is there and cannot be opened (another key, another
// request's). Credential headers that came unsealed are dropped when a
// key is set: only the gateway puts them there.
func unseal(fleetKey []byte, h nats.Header, into http.Header) bool {
	if fleetKey == nil {
		return true
	}
	for _, k := range sealedHeaders {
		into.Del(k)
	}
	v := h.Get(hdrSealed)
	if v == "" {
		return true
	}
	sealed, err := base64.RawStdEncoding.DecodeString(v)
	aead := gcm(fleetKey)
	if err != nil || len(sealed) < aead.NonceSize() {
		return false
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(h.Get(hdrMethod)+" "+h.Get(hdrTarget)))
	if err != nil {
		return false
	}
	var creds map[string][]string
	if json.Unmarshal(plain, &creds) != nil {
		return false
	}
	for _, k := range sealedHeaders {
		if vs := creds[k]; len(vs) > 0 {
			into[k] = vs
		}
	}
	return true
}

// signAnswer signs a worker's heartbeat or answer: its subject (an
// answer's is the request's own reply inbox, so an answer cannot be
// replayed for another request), every header, and its body.
func signAnswer(fleetKey []byte, kind string, m *nats.Msg) {
	if fleetKey != nil {
		m.Header.Set(hdrMAC, mac(fleetKey, kind, answerParts(m)...))
	}
}

// answerSigned reports whether a heartbeat or answer was signed under the
// fleet key (no key: every one is taken).
func answerSigned(fleetKey []byte, kind string, m *nats.Msg) bool {
	return fleetKey == nil || m.Header != nil && macOK(fleetKey, m.Header.Get(hdrMAC), kind, answerParts(m)...)
}

func answerParts(m *nats.Msg) []string {
	keys := make([]string, 0, len(m.Header))
	for k := range m.Header {
		if k != hdrMAC {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := []string{m.Subject}
	for _, k := range keys {
		parts = append(parts, k, strings.Join(m.Header[k], "\n"))
	}
	return append(parts, string(m.Data))
}
