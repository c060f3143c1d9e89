// Package runtime loads bundles and runs episodes: an episode is a private
// copy-on-write view of the environment's SQLite snapshot plus a seed, and a
// tool call runs the bundle's WebAssembly tool code under wazero against it.
//
// State: the bundle's database is held once per process as an mvcc snapshot
// (ncruces/go-sqlite3 vfs/mvcc, a persistent tree of pages). Each episode
// connection's database is a file of its own over that tree, made in O(1)
// (epvfs.go), with the initial state attached read-only as schema "init". An
// episode keeps one open transaction; every tool call runs inside a savepoint
// that is released on success and rolled back on any error, and Reset rolls
// the transaction back, so a reset never copies the database whatever its
// size. Past Options.MaxConns connections held, an episode between steps
// commits into its file, keeps the file's image and gives its connection
// back (park.go). The connection records which rows the episode writes
// (SQLite's pre-update hook), so the diff, the state hash and the score read
// those rows, not the tables (tracking.go, trackview.go).
//
// Code: wazero module instances are pooled and shared by episodes. Tool code
// cannot keep state between calls (the compiler rejects package-level
// variables), so guest memory carries nothing from one episode to the next.
// A call that traps (timeout, out of memory, crash) discards its instance.
//
// Sandbox: the guest has no files, no network, no environment, no arguments;
// its clock and random source come from the host, seeded per episode. Guest
// SQL passes an authorizer that allows only reads and row writes on the
// episode's own tables. Every call has a time limit (which also interrupts
// SQLite), a memory limit and an output size limit.
package runtime
