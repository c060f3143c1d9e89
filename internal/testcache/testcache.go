// Package testcache gives a test binary its own wasmenv cache directory, so
// that tests neither read nor fill the user's cache and always build for real.
package testcache

import (
	"os"
	"testing"
)

// Main runs the tests with WASMENV_CACHE set to a fresh directory, removed
// afterwards, and exits with the tests' code.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmenv-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("WASMENV_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
