package fleet_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/fleet"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster starts a 3-node JetStream cluster on loopback and waits for
// its meta leader. It returns the nodes by name and the client URL list.
func startCluster(t *testing.T) (map[string]*server.Server, string) {
	t.Helper()
	ports := []int{freePort(t), freePort(t), freePort(t)}
	nodes := map[string]*server.Server{}
	var urls []string
	for i := range 3 {
		var routes []string
		for j, p := range ports {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		s, err := fleet.StartServer(fleet.ServerConfig{Name: fmt.Sprintf("n%d", i), Port: -1, StoreDir: t.TempDir(),
			Cluster: "wasmenv-test", ClusterPort: ports[i], Routes: routes})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		nodes[s.Name()] = s
		urls = append(urls, s.ClientURL())
	}
	url := strings.Join(urls, ",")
	js, _ := jetstream.New(connect(t, url))
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		leader, current := false, true
		for _, n := range nodes {
			leader = leader || n.JetStreamIsLeader()
			current = current && n.JetStreamIsCurrent()
		}
		if err == nil && leader && current {
			return nodes, url
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster has no JetStream leader: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// On a 3-node cluster with 3 replicas, the node leading the job stream is
// killed while a job runs: leaders move, clients reconnect, and the output
// is complete and the bytes of the single-process run.
func TestClusterNodeKilledMidRun(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Tasks = "cancel-*,modify-*"
	want := reference(t, spec, store)
	nodes, url := startCluster(t)
	opts := fleet.Options{AckWait: 2 * time.Second, MaxDeliver: 5} // replicas: automatic, 3 on this cluster
	release := llm.holdRequests()
	startWorkersReaching(t, url, 2, opts, llm.allow())
	done := runAsync(t, url, spec, store)
	llm.waitArrival(t, done)

	js, _ := jetstream.New(connect(t, url))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, fleet.StreamJobs)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 || info.Cluster == nil || nodes[info.Cluster.Leader] == nil {
		t.Fatalf("job stream: %d replicas, cluster %+v", info.Config.Replicas, info.Cluster)
	}
	leader := nodes[info.Cluster.Leader]
	leader.Shutdown()
	leader.WaitForShutdown()
	release()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("after killing %s: %d bytes, the local run %d; they differ", info.Cluster.Leader, len(r.out), len(want))
	}
}
