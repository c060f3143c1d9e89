package llm

import (
	"io"
	"sync"

	"github.com/wasmenv/wasmenv/internal/progress"
)

// tally counts what the progress bar shows after the environments done:
// kept, dropped, stage runs finished, and their tokens and cost so far.
type tally struct {
	bar                            *progress.Bar
	mu                             sync.Mutex
	total, finished, kept, dropped int
	stages                         int // stage runs finished
	tokens                         int // of finished stage runs
	cost                           float64
}

func newProgress(w io.Writer, total int) *tally {
	t := &tally{bar: progress.New(w, ""), total: total}
	t.draw()
	return t
}

// stage counts a finished stage run and its tokens and cost.
func (t *tally) stage(u Usage, cost float64) {
	if t == nil || t.bar == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stages++
	t.tokens += u.PromptTokens + u.CompletionTokens
	t.cost += cost
	t.draw()
}

// done counts a finished environment.
func (t *tally) done(e EnvReport) {
	if t == nil || t.bar == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finished++
	if e.Kept {
		t.kept++
	} else {
		t.dropped++
	}
	t.draw()
}

func (t *tally) draw() {
	t.bar.Note("environments · kept %d · dropped %d · %d stages · %d tokens · $%.4f", t.kept, t.dropped, t.stages, t.tokens, t.cost)
	t.bar.Update(t.finished, t.total)
}

func (t *tally) finish() { t.bar.Done() }
