package llm

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// progress draws a one-line bar: environments done, kept, dropped, stage
// runs finished, and their tokens and cost so far.
type progress struct {
	w                              io.Writer
	mu                             sync.Mutex
	total, finished, kept, dropped int
	stages                         int // stage runs finished
	tokens                         int // of finished stage runs
	cost                           float64
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
	p.draw()
	return p
}

// stage counts a finished stage run and its tokens and cost.
func (p *progress) stage(u Usage, cost float64) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stages++
	p.tokens += u.PromptTokens + u.CompletionTokens
	p.cost += cost
	p.draw()
}

// done counts a finished environment.
func (p *progress) done(e EnvReport) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	if e.Kept {
		p.kept++
	} else {
		p.dropped++
	}
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = width * p.finished / p.total
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d environments · kept %d · dropped %d · %d stages · %d tokens · $%.4f",
		strings.Repeat("#", fill), strings.Repeat("-", width-fill), p.finished, p.total, p.kept, p.dropped, p.stages, p.tokens, p.cost)
}

func (p *progress) finish() {
	if p.w != nil {
		fmt.Fprintln(p.w)
	}
}
