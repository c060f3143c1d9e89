package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	width    = 30                     // cells of the bar
	interval = 100 * time.Millisecond // shortest time between redraws
)

// Bar is a progress bar; it is safe for concurrent use.
type Bar struct {
	w     io.Writer
	label string
	tty   bool

	mu        sync.Mutex
	done, tot int
	note      string
	last      time.Time
	lastTenth int
	open      bool // a terminal line is drawn and not yet ended
}

// New draws to w, as a redrawn bar if w is a terminal and as a line per
// tenth otherwise. A nil w gives a nil Bar, which draws nothing.
func New(w io.Writer, label string) *Bar {
	if w == nil {
		return nil
	}
	return &Bar{w: w, label: label, tty: IsTerminal(w), lastTenth: -1}
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Update reports done of total. Its signature fits rl.Config.Progress and
// synth/tasks' Options.Progress.
func (b *Bar) Update(done, total int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.tot = done, total
	b.draw(false)
}

// Note sets the text drawn after the count (say, tokens and cost so far)
// and redraws the bar if the terminal allows.
func (b *Bar) Note(format string, args ...any) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.note = fmt.Sprintf(format, args...)
	if b.tty {
		b.draw(false)
	}
}

// Done draws the final state and ends the line.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(true)
	if b.open {
		fmt.Fprintln(b.w)
		b.open = false
	}
}

func (b *Bar) draw(final bool) {
	if b.tot <= 0 {
		return
	}
	note := ""
	if b.note != "" {
		note = " " + b.note
	}
	label := ""
	if b.label != "" {
		label = b.label + " "
	}
	if !b.tty {
		tenth := b.done * 10 / max(b.tot, 1)
		if tenth == b.lastTenth {
			return
		}
		b.lastTenth = tenth
		if label != "" {
			label = b.label + ": "
		}
		fmt.Fprintf(b.w, "%s%d/%d%s\n", label, b.done, b.tot, note)
		return
	}
	if !final && b.done < b.tot && time.Since(b.last) < interval {
		return
	}
	b.last = time.Now()
	n := min(width, width*max(b.done, 0)/max(b.tot, 1))
	// \x1b[K clears what a longer earlier line left to the right.
	fmt.Fprintf(b.w, "\r%s[%s%s] %d/%d%s\x1b[K", label, strings.Repeat("#", n), strings.Repeat(".", width-n), b.done, b.tot, note)
	b.open = true
}
