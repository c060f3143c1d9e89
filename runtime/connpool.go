package runtime

import (
	"sync"
	"time"
)

// The pool of rolled-back connections (see sqlConn). Every connection an
// episode gives back is kept; those beyond a floor of Options.ConnPool
// (default 4 per CPU, all initial states together) are closed once unused
// for connIdleTTL. Episodes that end under load are followed by as many that
// begin, in bursts: a rollout engine with 1,000 episodes in flight closes
// hundreds before it opens the next ones, and with a fixed pool of 8, or one
// as large as the connections in use, most first calls still opened a new
// connection (BenchmarkRollout/raw, docs/BENCHMARKS.md). Keeping them costs
// no new peak of memory (they were in use a moment before); the TTL gives
// the memory back when the load goes.

// defaultConnPool is the floor of idle connections per CPU when
// Options.ConnPool is zero. An idle connection holds ~400 KiB to a few MiB
// (its SQLite heap, page cache included, see spilled).
const defaultConnPool = 4

// connIdleTTL is how long a connection beyond the floor may stay unused.
const connIdleTTL = time.Second

// connPool is an initial state's idle connections, the most recently
// returned last.
type connPool struct {
	mu     sync.Mutex
	idle   []*sqlConn
	closed bool // the Env closed: keep nothing more
}

// takeConn takes the most recently returned idle connection of an initial
// state, or nil.
func (e *Env) takeConn(s *initState) *sqlConn {
	p := &s.conns
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	c := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	e.idleConns.Add(-1)
	return c
}

// putConn keeps a rolled-back connection for the next episode of its
// initial state, unless the pool is full or the Env closed.
func (e *Env) putConn(c *sqlConn) bool {
	if e.connPool < 0 {
		return false
	}
	if c.resp != nil && cap(c.resp) > maxKeptResponse {
		c.resp = nil
	}
	p := &c.init.conns
	p.mu.Lock()
	if e.closed.Load() || p.closed {
		p.mu.Unlock()
		return false
	}
	n := e.idleConns.Add(1)
	c.idleSince = time.Now()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
	if n > int64(e.connPool) {
		e.scheduleTrim()
	}
	return true
}

// scheduleTrim arranges for trimConns to run after connIdleTTL, once.
func (e *Env) scheduleTrim() {
	if e.trimming.CompareAndSwap(false, true) {
		time.AfterFunc(connIdleTTL, e.trimConns)
	}
}

// trimConns closes idle connections unused for connIdleTTL, oldest first,
// while more than the floor are idle, and comes back while any are left
// over the floor.
func (e *Env) trimConns() {
	e.trimming.Store(false)
	cutoff := time.Now().Add(-connIdleTTL)
	var drop []*sqlConn
	e.mu.Lock()
	for _, s := range e.inits {
		p := &s.conns
		p.mu.Lock()
		k := 0
		for k < len(p.idle) && p.idle[k].idleSince.Before(cutoff) && e.idleConns.Load() > int64(e.connPool) {
			drop = append(drop, p.idle[k])
			e.idleConns.Add(-1)
			k++
		}
		p.idle = append(p.idle[:0], p.idle[k:]...)
		p.mu.Unlock()
	}
	e.mu.Unlock()
	for _, c := range drop {
		c.close()
	}
	if e.idleConns.Load() > int64(e.connPool) && !e.closed.Load() {
		e.scheduleTrim()
	}
}

// CloseIdleConns closes the SQLite connections kept for later episodes
// (the pool's floor included), giving their memory back now: for a memory
// measurement, or a server short of memory.
func (e *Env) CloseIdleConns() {
	var drop []*sqlConn
	e.mu.Lock()
	for _, s := range e.inits {
		p := &s.conns
		p.mu.Lock()
		drop = append(drop, p.idle...)
		e.idleConns.Add(-int64(len(p.idle)))
		p.idle = nil
		p.mu.Unlock()
	}
	e.mu.Unlock()
	for _, c := range drop {
		c.close()
	}
}

// closeConns closes an initial state's idle connections; later ones are
// not kept.
func (e *Env) closeConns(s *initState) {
	p := &s.conns
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	e.idleConns.Add(-int64(len(idle)))
	p.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}
