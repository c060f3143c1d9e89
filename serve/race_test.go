//go:build race

package serve

// raceEnabled: the race detector's shadow memory is resident memory that
// no collection gives back, so tests that measure RSS skip their checks.
const raceEnabled = true
