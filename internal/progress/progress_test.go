package progress_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/internal/progress"
)

func TestLinesOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "tasks")
	for i := 0; i <= 20; i++ {
		b.Update(i, 20)
	}
	b.Done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 11 { // 0/20, 2/20, ..., 20/20
		t.Fatalf("%d lines, want one per tenth:\n%s", len(lines), buf.String())
	}
	if lines[0] != "tasks: 0/20" || lines[10] != "tasks: 20/20" {
		t.Fatalf("lines %q ... %q", lines[0], lines[10])
	}
	if strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Fatalf("a log file got terminal redraws: %q", buf.String())
	}
}

func TestNoteOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "")
	b.Note("kept %d", 0)
	b.Update(0, 2)
	b.Note("kept %d", 1) // not a new tenth: no line
	b.Update(1, 2)
	b.Done()
	want := "0/2 kept 0\n1/2 kept 1\n"
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestTerminalRedraws(t *testing.T) {
	var buf bytes.Buffer
	b := progress.NewTerminal(&buf, "rollouts")
	b.Update(0, 4)
	b.Update(1, 4) // within 100 ms of the last draw: skipped
	b.Update(4, 4) // the end is always drawn
	b.Done()
	out := buf.String()
	if strings.Count(out, "\r") != 3 { // 0/4, 4/4, Done's final draw
		t.Fatalf("draws: %q", out)
	}
	if !strings.Contains(out, "\rrollouts [##############################] 4/4\x1b[K") {
		t.Fatalf("full bar missing: %q", out)
	}
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("want exactly one line end: %q", out)
	}
}

func TestOutOfRangeAndNil(t *testing.T) {
	var buf bytes.Buffer
	b := progress.NewTerminal(&buf, "")
	b.Update(9, 3) // more done than total must not panic on Repeat
	b.Update(-1, 3)
	b.Update(1, 0) // nothing to draw
	b.Done()

	var nilBar *progress.Bar
	nilBar.Update(1, 2)
	nilBar.Note("x")
	nilBar.Done()
	if progress.New(nil, "x") != nil {
		t.Fatal("New(nil) is not nil")
	}
}

func TestConcurrentUpdates(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "x")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				b.Update(i*100+j, 800)
				b.Note("n%d", j)
			}
		}()
	}
	wg.Wait()
	b.Done()
}
