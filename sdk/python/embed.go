package python

import "embed"

// Files is the py directory (its .py files only): the guest's /wasmenv.
//
//go:embed py/*.py py/wasmenv/*.py
var Files embed.FS
