package compiler

// buildMemoryCapped: Linux has RLIMIT_DATA, set through sh's ulimit -d.
const buildMemoryCapped = true
