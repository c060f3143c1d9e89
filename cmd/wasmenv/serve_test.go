package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Issue 13 item 3: guest sdk.Log lines reach the server's stderr when the
// server runs with --token (they were dropped), at most 64 KiB per call.
func TestServeKeepsGuestLogs(t *testing.T) {
	bundle := buildMini(t)
	cmd := exec.Command(bin, "serve", bundle, "--addr", "127.0.0.1:0", "--token", "sekrit")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v (stderr %s)", err, stderr.String())
	}
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	do := func(path, body string) string {
		req, _ := http.NewRequest("POST", url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sekrit")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	created := do("/v1/episodes", `{}`)
	i := strings.Index(created, `"ep_`)
	if i < 0 {
		t.Fatalf("create: %s", created)
	}
	id := created[i+1 : i+1+strings.Index(created[i+1:], `"`)]
	if out := do("/v1/episodes/"+id+"/call", `{"name":"abuse","arguments":{"mode":"log"}}`); !strings.Contains(out, "logged") {
		t.Fatalf("call: %s", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(stderr.String(), "dropped") {
		time.Sleep(50 * time.Millisecond)
	}
	got := stderr.String()
	if !strings.Contains(got, "guest") || !strings.Contains(got, "9 llll") && !strings.Contains(got, "0 llll") {
		t.Fatalf("no guest log line on stderr with --token:\n%.500s", got)
	}
	if len(got) > 200<<10 {
		t.Fatalf("one call logged %d bytes (10 MB asked, 64 KiB allowed)", len(got))
	}
}
