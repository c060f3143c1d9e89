package llm

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// progress draws a one-line bar: environments done, kept, dropped, tokens
// and cost so far.
type progress struct {
	w                              io.Writer
	mu                             sync.Mutex
	total, finished, kept, dropped int
	tokens                         int
	cost                           float64
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
	p.draw()
	return p
}

func (p *progress) done1(e EnvReport) {
	p.finished++
	if e.Kept {
		p.kept++
	} else {
		p.dropped++
	}
	for _, s := range e.Stages {
		p.tokens += s.PromptTokens + s.CompletionTokens
		p.cost += s.Cost
	}
}

func (p *progress) done(e EnvReport) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done1(e)
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
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d environments · kept %d · dropped %d · %d tokens · $%.4f",
		strings.Repeat("#", fill), strings.Repeat("-", width-fill), p.finished, p.total, p.kept, p.dropped, p.tokens, p.cost)
}

func (p *progress) finish() {
	if p.w != nil {
		fmt.Fprintln(p.w)
	}
}
