//go:build wasip1

package sdk

import "unsafe"

// wasmenvBuffer returns the address of a guest buffer of n bytes into which
// the host writes a call's JSON arguments.
//
//go:wasmexport wasmenv_buffer
func wasmenvBuffer(n uint32) uint32 {
	b := growArgs(n)
	if n == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// wasmenvCall runs tool on the first n bytes of the buffer and returns the
// output's address and length packed as addr<<32 | len. The output stays
// valid until the next call.
//
//go:wasmexport wasmenv_call
func wasmenvCall(tool, n uint32) uint64 {
	out := runCall(tool, n)
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(out))))<<32 | uint64(len(out))
}
