// Package envpkg owns the bundle format: one valid WebAssembly module (the
// environment's compiled tools) followed by custom sections that carry the
// manifest (tool schemas in MCP and OpenAI form), the zstd-packed SQLite
// snapshot, the tasks with their checks, and finally a content hash over
// everything before it. Any Wasm tool can list the sections; wasmenv refuses
// a bundle whose structure, hash, manifest, tasks or database do not check out.
// Writes are atomic: a temporary file in the target directory, then rename.
package envpkg
