//go:build !linux

package compiler

// buildMemoryCapped: elsewhere go build runs without a memory limit
// (docs/SYNTHESIS.md says so); the source size cap still holds.
const buildMemoryCapped = false
