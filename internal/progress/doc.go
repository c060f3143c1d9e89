// Package progress draws the one progress bar wasmenv's long commands show
// (rollout, synth from-db, synth llm).
//
// On a terminal the bar is redrawn in place, at most ten times a second,
// as "label [#####.....] done/total note". Anywhere else (a log file, a
// pipe, a CI log) carriage-return redraws would pile up, so it writes one
// plain line "label: done/total note" each time another tenth of the work
// is done. A nil *Bar is valid and draws nothing, so callers need no
// branch for "no progress wanted".
package progress
