// Package cpuhog keeps a machine's processors busy, for the tests that show
// a result does not depend on load (issue 35): busy loops beside the work
// under test, more of them than cores.
package cpuhog
