package runtime

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3/vfs/mvcc"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Candidate is a task that is not in the bundle, being judged (the
// synthesis gates replay and score it): its episodes run and score it as
// they would one of the bundle's tasks, while the bundle, which other
// goroutines may be reading, is left as it is. The candidate has an id of
// its own, so that what the environment caches by task id (the ground
// truth's state hash, the state after a setup) is never another task's.
type Candidate struct {
	env  *Env
	task envpkg.Task
}

var candidateSeq atomic.Int64

// Candidate prepares t to be run and scored. Close it when done.
func (e *Env) Candidate(t envpkg.Task) *Candidate {
	c := &Candidate{env: e, task: t}
	for {
		c.task.ID = fmt.Sprintf("~candidate-%d", candidateSeq.Add(1))
		if _, taken := e.Bundle.Task(c.task.ID); !taken {
			return c
		}
	}
}

// NewEpisode starts an episode on the candidate with a seed. Its Task is
// the candidate under its private id.
func (c *Candidate) NewEpisode(seed int64) (*Episode, error) {
	return c.env.newEpisode(&c.task, seed)
}

// Close forgets what the environment cached for the candidate. Its
// episodes must be closed first.
func (c *Candidate) Close() {
	e := c.env
	e.mu.Lock()
	for k := range e.gtHashes {
		if k.task == c.task.ID {
			delete(e.gtHashes, k)
		}
	}
	var s *initState
	if c.task.Setup != "" && e.inits != nil {
		s = e.inits[c.task.ID]
		delete(e.inits, c.task.ID)
	}
	e.mu.Unlock()
	if s == nil {
		return
	}
	<-s.ready
	if s.err == nil { // a failed setup deleted its state already
		e.closeConns(s)
		mvcc.Delete(s.name)
	}
}

// ScoreChecks is Score without the state hash (StateHash is "" unless the
// task's reward is the state's): what a judge needs when it only asks
// whether a state passes, at the cost of the checks alone, where Score
// also hashes every table the episode wrote.
func (ep *Episode) ScoreChecks(ctx context.Context, answer *string) (Score, error) {
	return ep.score(ctx, answer, false)
}
