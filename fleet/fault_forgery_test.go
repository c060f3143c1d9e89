package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/wasmenv/wasmenv/fleet"
)

// authServer starts an embedded NATS server with the nkey users and
// per-role permissions of deploy/nats/fleet-auth.conf, and returns its URL
// and each role's seed file.
func authServer(t *testing.T) (string, map[string]string) {
	t.Helper()
	conf, err := os.ReadFile("../deploy/nats/fleet-auth.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	seeds := map[string]string{}
	for _, role := range []string{"DRIVER", "WORKER", "GATEWAY", "SERVING"} {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		conf = bytes.ReplaceAll(conf, []byte(role+"_NKEY"), []byte(pub))
		seeds[strings.ToLower(role)] = filepath.Join(dir, strings.ToLower(role)+".nk")
		if err := os.WriteFile(seeds[strings.ToLower(role)], seed, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "fleet-auth.conf")
	os.WriteFile(path, conf, 0o600)
	s, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: t.TempDir(), ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL(), seeds
}

// connectAs connects with a role's nkey seed.
func connectAs(t testing.TB, url, seed string) *nats.Conn {
	t.Helper()
	opt, err := nats.NkeyOptionFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, opt, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// The fault-and-forgery test of issue 37: NATS with nkey users and per-role
// permissions, a fleet key on every driver, worker and gateway. While a
// real worker process holds a job, a fleet member without the key (a
// worker's NATS credentials) answers every job with a forged result and
// the first with a forged dead letter; the worker is SIGKILLed; a serving
// credential without the key beats as an empty worker to the gateway. The
// run's output is the local run's byte for byte with nothing forged in it,
// the job is redelivered, and the gateway counts only the honest worker.
func TestFleetWithAuthSurvivesFaultsAndForgeries(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Tasks = "cancel-*,modify-*"
	want := reference(t, spec, store) // before holding: the reference answers at once
	honestToolset, _, _ := strings.Cut(string(want), "\n")
	refs := plan(t, spec, store)
	url, seeds := authServer(t)
	keyFile := filepath.Join(t.TempDir(), "fleet.key")
	key := fleetKey(t)
	os.WriteFile(keyFile, key, 0o600)

	release := llm.holdRequests()
	victim := startWorkerProcess(t, url, fastOpts, append(llm.allowFlag(), "--nats-nkey", seeds["worker"], "--fleet-key", keyFile)...)
	path := filepath.Join(t.TempDir(), "out.jsonl")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		out, err := fleet.CreateOutput(path, nil, false)
		if err != nil {
			done <- err
			return
		}
		d := &fleet.Driver{NC: connectAs(t, url, seeds["driver"]), RunID: "ff", FleetKey: key, Log: t.Logf}
		if _, err = d.Run(ctx, []*fleet.BundleFile{store}, spec, refs, out); err == nil {
			err = out.Close()
		} else {
			out.Abort()
		}
		done <- err
	}()
	select {
	case <-llm.arrived: // the victim is inside a job
	case err := <-done:
		t.Fatalf("the run ended before the victim took a job: %v", err)
	case <-time.After(time.Minute):
		t.Fatalf("the victim never took a job:\n%s", victim.log.String())
	}

	// The forger: a worker's NATS credentials, not the fleet key.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	js, _ := jetstream.New(connectAs(t, url, seeds["worker"]))
	jobs := queuedJobs(ctx, t, js, "ff", len(refs))
	for _, j := range jobs {
		if _, err := js.PublishMsg(ctx, forgedResult(t, "ff", j, honestToolset, j.Digest, true)); err != nil {
			t.Fatal(err)
		}
	}
	dl := nats.NewMsg("wasmenv.dead.ff")
	dl.Data, _ = json.Marshal(fleet.DeadLetter{Run: "ff", Index: jobs[0].Index, Digest: jobs[0].Digest, Deliveries: 5, Reason: "forged"})
	if _, err := js.PublishMsg(ctx, dl); err != nil {
		t.Fatal(err)
	}

	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()
	release()
	for i := range 2 {
		w := &fleet.Worker{NC: connectAs(t, url, seeds["worker"]), Options: fastOpts, Slots: 2, CacheDir: t.TempDir(),
			Endpoints: llm.allow(), FleetKey: key, Log: func(f string, a ...any) { t.Logf("worker %d: "+f, append([]any{i}, a...)...) }}
		wctx, wcancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { defer close(stopped); w.Run(wctx) }()
		t.Cleanup(func() { wcancel(); <-stopped })
	}

	// The gateway: an honest serving worker, and a forged heartbeat.
	id := fleet.NewServeID()
	sw := &fleet.ServeWorker{NC: connectAs(t, url, seeds["serving"]), ID: id, Heartbeat: 50 * time.Millisecond, FleetKey: key,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
	sctx, scancel := context.WithCancel(context.Background())
	sdone := make(chan struct{})
	go func() { defer close(sdone); sw.Run(sctx) }()
	t.Cleanup(func() { scancel(); <-sdone })
	gw, err := fleet.NewGateway(connectAs(t, url, seeds["gateway"]), fleet.GatewayOptions{FleetKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	impostor, impID := connectAs(t, url, seeds["serving"]), fleet.NewServeID()
	for deadline := time.Now().Add(30 * time.Second); len(gw.Workers()) == 0; time.Sleep(20 * time.Millisecond) {
		impostor.Publish("wasmenv.serve.load", []byte(`{"id":"`+impID+`","episodes":0}`))
		if time.Now().After(deadline) {
			t.Fatal("the gateway never heard the honest serving worker")
		}
	}
	impostor.Publish("wasmenv.serve.load", []byte(`{"id":"`+impID+`","episodes":0}`))
	impostor.Flush()
	time.Sleep(100 * time.Millisecond)
	if ws := gw.Workers(); len(ws) != 1 || !hasKey(ws, id) {
		t.Errorf("the gateway's workers: %v, want the honest %s alone", ws, id)
	}

	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("INJECTED")) {
		t.Fatal("a forged toolset record was written")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the output (%d bytes) is not the local run's (%d bytes)", len(got), len(want))
	}
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}
