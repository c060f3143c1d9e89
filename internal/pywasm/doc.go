// Package pywasm is the CPython interpreter wasmenv runs Python tool code
// with, and the shape of a Python bundle's tool module.
//
// The interpreter (CPython 3.13.5 for wasm32-wasi as a reactor with the
// wasmenv ABI, see tools/python-wasm) and its stdlib subset are built by
// tools/python-wasm/build.sh and committed zstd-compressed under dist/;
// Interpreter decompresses them once and refuses them unless their SHA-256
// matches the pinned sums, so what runs is what the script built.
//
// A Python bundle's module section is not CPython (7 MB in every bundle)
// but a stub: an empty WebAssembly module whose custom section
// "wasmenv-python" holds the interpreter's hash and the environment's
// Python files. The runtime swaps in the interpreter (when the hash
// matches) and mounts, read-only: /lib/python3.13 (the stdlib subset),
// /wasmenv (sdk/python) and /env (the tool files and the manifest's tool
// names). Describe runs the same interpreter at build time for the static
// checks and the tools' JSON Schemas.
package pywasm
