package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/internal/loadgen"
)

// serverProcess is a `wasmenv serve` started by serve-bench
// --server-process: the server in a process of its own, so that its CPU
// per call is measured apart from the load generator's (issue 35).
type serverProcess struct {
	cmd *exec.Cmd
	url string
}

// startServerProcess starts exe ("" for this executable) serving bundle on
// a free loopback port, sized for episodes, and waits for its "listening
// on" line.
func startServerProcess(ctx context.Context, exe, bundle string, episodes int, cpuProfile string, stderr io.Writer) (*serverProcess, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, exe, "serve", bundle, "--addr", "127.0.0.1:0",
		"--idle-timeout", "-1s", "--max-episodes", strconv.Itoa(episodes+16))
	if cpuProfile != "" {
		cmd.Args = append(cmd.Args, "--cpuprofile", cpuProfile)
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		io.Copy(io.Discard, out) // keep its stdout drained
	}()
	p := &serverProcess{cmd: cmd}
	select {
	case line := <-first:
		if u, ok := strings.CutPrefix(line, "listening on "); ok {
			p.url = strings.TrimSpace(u)
			return p, nil
		}
		p.stop()
		return nil, fmt.Errorf("serve-bench: %s did not start serving (first line %q)", exe, line)
	case <-time.After(2 * time.Minute):
		p.stop()
		return nil, fmt.Errorf("serve-bench: %s did not start serving in 2 minutes", exe)
	}
}

// cpu is the server process's CPU seconds so far.
func (p *serverProcess) cpu() (float64, error) { return loadgen.ProcessCPU(p.cmd.Process.Pid) }

// stop ends the server (SIGTERM, as a user's Ctrl-C would) and waits for
// it; a server that does not stop in 30 seconds is killed.
func (p *serverProcess) stop() error {
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		return <-done
	}
}
