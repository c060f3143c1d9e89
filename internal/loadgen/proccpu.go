package loadgen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// clockTicks is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// ProcessCPU reads the CPU seconds (user + system, all threads) that the
// process pid has used, from /proc/PID/stat (Linux); serve-bench's
// --server-process uses it for Options.ServerCPU. Resolution is 10 ms.
func ProcessCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("loadgen: the CPU time of process %d: %w", pid, err)
	}
	return parseProcStat(b)
}

// parseProcStat takes utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name (field 2) is in parentheses and may
// hold spaces and parentheses itself, so the fields are counted after the
// last ')'.
func parseProcStat(b []byte) (float64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("loadgen: /proc stat line without a command name: %.80q", b)
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("loadgen: /proc stat line with %d fields after the name, want 13 or more", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadgen: /proc stat CPU time %q: %v", s, err)
		}
		ticks += n
	}
	return float64(ticks) / clockTicks, nil
}
