package progress

import "io"

// NewTerminal is New as if w were a terminal.
func NewTerminal(w io.Writer, label string) *Bar {
	b := New(w, label)
	b.tty = true
	return b
}
