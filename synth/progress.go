package synth

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Progress draws a bar on a terminal, or prints a line every 10% elsewhere.
type Progress struct {
	w         io.Writer
	tty       bool
	label     string
	last      time.Time
	lastTenth int
}

// NewProgress writes to w (a terminal gets a redrawn bar).
func NewProgress(w io.Writer, label string) *Progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &Progress{w: w, tty: tty, label: label, lastTenth: -1}
}

// Update reports done of total.
func (p *Progress) Update(done, total int) {
	if p == nil || total <= 0 {
		return
	}
	if p.tty {
		if done < total && time.Since(p.last) < 100*time.Millisecond {
			return
		}
		p.last = time.Now()
		const width = 30
		n := done * width / total
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done >= total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if tenth := done * 10 / total; tenth != p.lastTenth {
		p.lastTenth = tenth
		fmt.Fprintf(p.w, "%s: %d/%d\n", p.label, done, total)
	}
}

// Done ends the bar line on a terminal.
func (p *Progress) Done() {
	if p != nil && p.tty {
		fmt.Fprintln(p.w)
	}
}
