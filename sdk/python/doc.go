// Package python holds the Python side of wasmenv's Python tool code: the
// sdk module tool files import (wasmenv), the bootstrap the interpreter
// runs at start-up (_wasmenv_boot) and the build-time checks and schema
// rules (_wasmenv_check). They are Python sources, embedded here and
// mounted read-only at /wasmenv in the guest by internal/pywasm.
package python
