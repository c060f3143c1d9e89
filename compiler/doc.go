// Package compiler turns an environment source directory (env.yaml,
// schema.sql, seed data, tools/*.go, tasks) into a bundle.
//
// Tool code is checked statically (allowed imports only, no package-level
// state, no goroutines, no directives), its argument and result types become
// JSON Schemas and generated reflection-free codecs, and the whole is built
// with the standard Go toolchain for GOOS=wasip1 GOARCH=wasm as a reactor
// module. The build directory is self-contained: the sdk sources are embedded
// in this package's binary, so building needs no network and no checkout of
// wasmenv. Built modules are cached under a hash of every input and the
// toolchain version.
package compiler
