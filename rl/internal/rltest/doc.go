// Package rltest holds the test helpers that rl and its policies share:
// example environments built once per test binary, and an exporter that
// keeps what it is given.
package rltest
