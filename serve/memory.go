package serve

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// memoryCheck refuses a new episode while the process's resident memory is
// over Options.MaxMemoryBytes, after freeing the runtime's idle connections.
func (s *Server) memoryCheck(ctx context.Context) error {
	if s.opts.MaxMemoryBytes <= 0 {
		return nil
	}
	rss := residentBytes()
	if rss <= s.opts.MaxMemoryBytes {
		return nil
	}
	// The runtime keeps closed episodes' SQLite connections for a while to
	// reuse them: give that memory back before refusing anyone.
	for _, e := range s.envs {
		e.CloseIdleConns()
	}
	if rss = residentBytes(); rss <= s.opts.MaxMemoryBytes {
		return nil
	}
	// Closed episodes' pages may still be garbage nobody collected: collect
	// it and give it back before refusing anyone, waiting (within the
	// request's time) for the releaser's pace.
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	s.mem.releaseBefore(ctx) // or the releaser's own loop ran one meanwhile
	if rss = residentBytes(); rss <= s.opts.MaxMemoryBytes {
		return nil
	}
	e := errf(http.StatusTooManyRequests, CodeMemory, "the server uses %d MiB, over its memory cap of %d MiB; retry later or delete episodes",
		rss>>20, s.opts.MaxMemoryBytes>>20)
	e.retryAfter = 1
	return e
}

// residentBytes is the process's resident set size (Linux /proc), or 0
// where it cannot be read.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
