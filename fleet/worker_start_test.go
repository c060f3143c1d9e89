package fleet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
)

// Issue 38: a worker whose stderr is not a terminal said nothing until a
// job came. It now says at start that it is up, where, with how many
// slots and which model endpoints it may reach.
func TestWorkerSaysItIsReady(t *testing.T) {
	url := startServer(t)
	p := startWorkerProcess(t, url, fleet.Options{AckWait: 30 * time.Second, MaxDeliver: 5},
		"--allow-endpoint", "http://127.0.0.1:1/v1")
	deadline := time.Now().Add(2 * time.Minute) // a bound on a hang, not a timing
	for !strings.Contains(p.log.String(), " ready on nats://") {
		if time.Now().After(deadline) {
			t.Fatalf("no start line in the worker's log:\n%s", p.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	line := p.log.String()
	for _, want := range []string{"1 job slots", "fleet key false", "model endpoints http://127.0.0.1:1/v1"} {
		if !strings.Contains(line, want) {
			t.Errorf("start line lacks %q:\n%s", want, line)
		}
	}
}
