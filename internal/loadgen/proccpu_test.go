package loadgen

import (
	"os"
	"runtime"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a ')' of its own.
	line := []byte("4242 (wasm env) x) S 1 4242 4242 0 -1 4194560 1834 0 0 0 250 37 0 0 20 0 9 0 123 456 789\n")
	got, err := parseProcStat(line)
	if err != nil || got != 2.87 {
		t.Fatalf("got %v %v, want 2.87 s (250 + 37 ticks)", got, err)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 u s"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// ProcessCPU of this process grows with the CPU it burns.
func TestProcessCPUSeesWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	before, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 1
	for {
		for i := range 50_000_000 {
			x ^= i * x
		}
		sink = x
		after, err := ProcessCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			return
		}
	}
}

var sink int
