package serve

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
)

// Options.IDPrefix is in every episode id (a fleet gateway routes by it);
// a prefix that could break a URL path or a NATS subject is refused.
func TestIDPrefix(t *testing.T) {
	ts := newTestServer(t, Options{IDPrefix: "0a1b2c3d."})
	ids := ts.create(`{"n":2}`)
	for _, id := range ids {
		if !strings.HasPrefix(id, "ep_0a1b2c3d.") || len(id) != len("ep_0a1b2c3d.")+32 {
			t.Errorf("id %q", id)
		}
	}
	if code, m := ts.do("POST", "/v1/episodes/"+ids[0]+"/call", `{"name":"put","arguments":{"key":"k","value":"v"}}`); code != 200 || m["is_error"] != false {
		t.Errorf("call on a prefixed id: %d %v", code, m)
	}
	for _, bad := range []string{"a/b", "a b", "w*", "w>", "..%2F", "ü"} {
		if _, err := New([]*runtime.Env{miniEnv(t)}, Options{IDPrefix: bad}); err == nil {
			t.Errorf("IDPrefix %q accepted", bad)
		}
	}
}
