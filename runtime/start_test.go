package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

// spinStart is a 32-byte module whose start function is `loop br 0`.
var spinStart = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type: () -> ()
	0x03, 0x02, 0x01, 0x00, // function 0 has type 0
	0x08, 0x01, 0x00, // start: function 0
	0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // code: loop br 0 end end
}

// Issue 13 item 6: a module with a start section ran it inside
// instantiation, before the _initialize limit, and hung Load. Start
// sections are refused.
func TestStartSectionIsRefused(t *testing.T) {
	if len(spinStart) != 32 {
		t.Fatalf("module is %d bytes", len(spinStart))
	}
	b := *testBundle(t, "edge", false)
	b.Module = spinStart
	done := make(chan error, 1)
	go func() {
		e, err := LoadBundle(context.Background(), &b, Options{CompileCacheDir: "off"})
		if err == nil {
			e.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "start section") {
			t.Fatalf("load: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a start function that loops hangs Load")
	}
	if _, err := envpkg.Encode(&b); err == nil || !strings.Contains(err.Error(), "start section") {
		t.Fatalf("encode: %v", err)
	}
}
