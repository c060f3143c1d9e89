package fleet_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmenv/wasmenv/fleet"
)

// Issue 37, finding 5: with a fleet key, a gateway places episodes only on
// workers whose heartbeats are signed, relays only signed answers, and
// the clients' bearer tokens do not cross NATS in clear. An impostor
// publishes heartbeats of an empty worker (the least loaded), holds its
// own subject and joins the queue group; a spy reads every message on
// wasmenv.serve.>. Twenty creates with a client's token all reach the
// honest worker, with the token; the impostor gets none of them, and the
// token is in no message the spy read.
func TestGatewayPlacesOnlyOnSignedWorkers(t *testing.T) {
	const token = "Bearer client-secret-token-37"
	key := fleetKey(t)
	url := startServer(t)
	id := fleet.NewServeID()
	honest := &fleet.ServeWorker{NC: connect(t, url), ID: id, Heartbeat: 50 * time.Millisecond, FleetKey: key,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"auth": r.Header.Get("Authorization"), "worker": id})
		})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); honest.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	var mu sync.Mutex
	var spied []string
	impostorGot := 0
	spy := connect(t, url)
	if _, err := spy.Subscribe("wasmenv.serve.>", func(m *nats.Msg) {
		b, _ := json.Marshal(m.Header)
		mu.Lock()
		spied = append(spied, string(b)+string(m.Data))
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	impostor, impID := connect(t, url), fleet.NewServeID()
	answer := func(m *nats.Msg) {
		mu.Lock()
		impostorGot++
		mu.Unlock()
		out := nats.NewMsg(m.Reply)
		out.Header.Set("Wasmenv-Status", "200")
		out.Header.Set("Wasmenv-Worker", impID)
		out.Data = []byte(`{"impostor":true}`)
		m.RespondMsg(out)
	}
	impostor.Subscribe("wasmenv.serve.w."+impID, answer)
	impostor.QueueSubscribe("wasmenv.serve.any", "wasmenv-serve", answer)
	stopBeats := make(chan struct{})
	beatsDone := make(chan struct{})
	go func() {
		defer close(beatsDone)
		for {
			impostor.Publish("wasmenv.serve.load", []byte(`{"id":"`+impID+`","episodes":0,"capacity":1000000}`))
			select {
			case <-stopBeats:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { close(stopBeats); <-beatsDone })
	impostor.Flush()
	spy.Flush()

	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{FleetKey: key})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw)
	t.Cleanup(func() { hs.Close(); gw.Close() })
	for deadline := time.Now().Add(30 * time.Second); gw.Workers()[id] == 0 && len(gw.Workers()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the gateway never heard the honest worker")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the impostor's beats have arrived too
	if _, ok := gw.Workers()[impID]; ok {
		t.Fatalf("the gateway counts the impostor among its workers: %v", gw.Workers())
	}
	for i := range 20 {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/episodes", strings.NewReader(`{"env":"x"}`))
		req.Header.Set("Authorization", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got map[string]string
		json.Unmarshal(b, &got)
		if resp.StatusCode != 200 || got["worker"] != id || got["auth"] != token {
			t.Fatalf("create %d: %d %s, want the honest worker's answer with the client's token", i, resp.StatusCode, b)
		}
	}
	spy.Flush()
	mu.Lock()
	defer mu.Unlock()
	if impostorGot != 0 {
		t.Errorf("the impostor received %d requests", impostorGot)
	}
	for _, m := range spied {
		if strings.Contains(m, "client-secret-token-37") {
			t.Fatalf("the token crossed NATS in clear: %s", m)
		}
	}
}
