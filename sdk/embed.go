//go:build !wasip1

package sdk

import "embed"

// Source holds this package's own sources so that the compiler can write a
// self-contained guest build directory with no checkout of wasmenv.
//
//go:embed *.go wire/*.go gen/*.go py/*.go
var Source embed.FS
