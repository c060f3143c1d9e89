package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// episode is a served runtime.Episode. lock is a one-slot semaphore that
// serializes everything done to ep and the step fields; waiting for it can
// be cancelled. ep is nil once the episode is closed.
type episode struct {
	id       string
	owner    string // the client that created it ("" without client auth)
	group    string
	env      *runtime.Env
	task     string // the episode's task id, fixed at creation (read without the lock)
	created  time.Time
	lastUsed atomic.Int64 // unix ns
	lock     chan struct{}

	// guarded by lock
	ep       *runtime.Episode
	steps    int
	done     bool
	maxSteps int
	// With a simulated user (user.go): its first message, and the
	// conversation so far as the agent sees it (nil without a user).
	opening string
	convo   []rl.Message
	hasUser bool // set at creation, never changed: read without the lock

	mcpOnce sync.Once
	mcpSrv  *mcp.Server

	oeText atomic.Bool // OpenEnv call_tool results as bare text (result_format "text")

	dropped func() // after ep's state was dropped, closed or reset (the server's releaser); may be nil
}

func newEpisode(idPrefix, group string, env *runtime.Env, ep *runtime.Episode, maxSteps int) *episode {
	e := &episode{id: newID("ep_" + idPrefix), group: group, env: env, ep: ep, maxSteps: maxSteps, task: taskID(ep),
		created: time.Now(), lock: make(chan struct{}, 1)}
	e.touch()
	return e
}

// newID is a prefix and 128 random bits in hex.
func newID(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func (e *episode) touch() { e.lastUsed.Store(time.Now().UnixNano()) }

func (e *episode) acquire(ctx context.Context) error {
	select {
	case e.lock <- struct{}{}:
		return nil
	default:
	}
	select {
	case e.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *episode) tryAcquire() bool {
	select {
	case e.lock <- struct{}{}:
		return true
	default:
		return false
	}
}

func (e *episode) release() {
	e.touch()
	<-e.lock
}

// close waits for the episode's lock and frees its state.
func (e *episode) close(ctx context.Context) bool {
	if e.acquire(ctx) != nil {
		return false
	}
	defer func() { <-e.lock }()
	if e.ep == nil {
		return false
	}
	e.closeLocked()
	return true
}

// closeLocked frees the episode's state; the caller holds its lock and has
// checked that ep is not nil.
func (e *episode) closeLocked() {
	ep := e.ep
	e.ep = nil
	ep.Close()
	if e.dropped != nil {
		e.dropped()
	}
}

// table is the set of live episodes. Capacity is reserved before episodes
// are built so that concurrent creates never exceed max.
type table struct {
	max   int
	mu    sync.RWMutex
	eps   map[string]*episode
	used  int            // live + reserved
	owned map[string]int // live + reserved, by owning client
}

func newTable(max int) *table {
	return &table{max: max, eps: map[string]*episode{}, owned: map[string]int{}}
}

// reserve makes room for n episodes of owner, who may hold at most quota
// (0: no quota). It reports which limit refused them, if one did.
func (t *table) reserve(owner string, n, quota int) (full, overQuota bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used+n > t.max {
		return true, false
	}
	if quota > 0 && t.owned[owner]+n > quota {
		return false, true
	}
	t.used += n
	t.owned[owner] += n
	return false, false
}

func (t *table) release(owner string, n int) {
	t.mu.Lock()
	t.used -= n
	t.owned[owner] -= n
	t.mu.Unlock()
}

// add registers episodes whose capacity was reserved.
func (t *table) add(eps []*episode, reserved int) {
	t.mu.Lock()
	for _, e := range eps {
		t.eps[e.id] = e
	}
	t.used += len(eps) - reserved
	if len(eps) > 0 {
		t.owned[eps[0].owner] += len(eps) - reserved
	}
	t.mu.Unlock()
}

func (t *table) get(id string) *episode {
	t.mu.RLock()
	e := t.eps[id]
	t.mu.RUnlock()
	return e
}

// remove unregisters an episode; false if it was not there.
func (t *table) remove(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.eps[id]
	if !ok {
		return false
	}
	delete(t.eps, id)
	t.used--
	t.owned[e.owner]--
	return true
}

func (t *table) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.eps)
}

// drain unregisters and returns every episode.
func (t *table) drain() []*episode {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*episode, 0, len(t.eps))
	for id, e := range t.eps {
		out = append(out, e)
		delete(t.eps, id)
		t.owned[e.owner]--
	}
	t.used -= len(out)
	return out
}

// reap closes episodes last used before cutoff and not busy now.
func (t *table) reap(cutoff time.Time) int {
	c := cutoff.UnixNano()
	t.mu.RLock()
	var idle []*episode
	for _, e := range t.eps {
		if e.lastUsed.Load() < c {
			idle = append(idle, e)
		}
	}
	t.mu.RUnlock()
	n := 0
	for _, e := range idle {
		if t.reapOne(e, c) {
			n++
		}
	}
	return n
}

// reapOne closes e if it is still idle and not busy.
func (t *table) reapOne(e *episode, cutoff int64) bool {
	if !e.tryAcquire() {
		return false // in use: not idle
	}
	defer func() { <-e.lock }()
	if e.lastUsed.Load() >= cutoff || e.ep == nil || !t.remove(e.id) {
		return false
	}
	e.closeLocked()
	return true
}

func taskID(ep *runtime.Episode) string {
	if t := ep.Task(); t != nil {
		return t.ID
	}
	return ""
}
