package runtime

import (
	"bytes"
	"sync"
)

// initCanons remembers the canonical form (appendCanon) of initial records
// that diffs compared against. A changed record's "same JSON value?" test
// canonicalized its initial text in every episode that wrote it; the
// initial state never changes, so an environment computes each once. Keyed
// by the text itself (not by view and key), so an entry can never stand for
// other bytes: initial states of different tasks, and any view, share it.
type initCanons struct {
	mu    sync.RWMutex
	m     map[string][]byte
	bytes int
}

// maxInitCanonBytes bounds the texts and forms kept per environment; past
// it the map starts over (a τ-bench retail record is ~1.4 KB, its form
// about as large: ~1,500 records).
const maxInitCanonBytes = 4 << 20

// of returns init's canonical form (appendCanon's, without a kind byte),
// or false where appendCanon declines it.
func (c *initCanons) of(init []byte) ([]byte, bool) {
	c.mu.RLock()
	form, ok := c.m[string(init)]
	c.mu.RUnlock()
	if ok {
		return form, true
	}
	form, ok = appendCanon(nil, init)
	if !ok {
		return nil, false
	}
	c.mu.Lock()
	if c.bytes+len(init)+len(form) > maxInitCanonBytes {
		c.m, c.bytes = nil, 0
	}
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	if _, dup := c.m[string(init)]; !dup {
		c.m[string(init)] = form
		c.bytes += len(init) + len(form)
	}
	c.mu.Unlock()
	return form, true
}

// sameAsInit reports whether a changed record's canonical form (with its
// kind byte) is its initial record's, where the fast form answers (ok).
func (c *initCanons) sameAsInit(canon, init []byte) (same, ok bool) {
	if len(canon) == 0 || canon[0] != 'j' {
		return false, false
	}
	form, ok := c.of(init)
	if !ok {
		return false, false
	}
	return bytes.Equal(canon[1:], form), true
}
