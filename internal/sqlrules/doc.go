// Package sqlrules is the one statement of what SQL from a bundle may do:
// tool code, a task's setup, its checks and export views. The compiler
// applies it when it tries a bundle's SQL at build time and the runtime when
// it runs it, so a bundle that builds never fails "not authorized" later.
package sqlrules
