//go:build wasip1

package gen

import (
	"runtime"
	"unsafe" // also for go:linkname
)

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
	restoreRand()
	out := runCall(tool, n)
	finishGC()
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(out))))<<32 | uint64(len(out))
}

// finishGC lets a garbage collection in progress finish. A reactor's
// exports run on one goroutine that never blocks, and the Go runtime's
// background mark workers run only when it yields: a cycle that starts in
// one call could not finish, everything allocated meanwhile was kept, and a
// tool that allocated 2 MB per call ran out of memory every ~240 calls.
// Yielding costs about a microsecond, so it is done only while a cycle is
// in progress (reading the runtime's phase needs -checklinkname=0, which
// the compiler passes).
func finishGC() {
	for i := 0; gcphase != 0 && i < maxGCYields; i++ {
		runtime.Gosched()
	}
}

// maxGCYields bounds the yields after one call: one lets the mark workers
// run their share, and a cycle left unfinished gets more after the next
// call (measured: 10,000 calls allocating 2 MB each take 3.6 s with one
// yield, 9.6 s when yielding until the cycle ends).
const maxGCYields = 1

// restoreRand puts the runtime's random state back to one fixed state, so
// that map seeds and map iteration order in a call depend only on the call.
// The compiler adds it to the runtime (compiler/guestpatch.go): a module
// built without the wasmenv compiler does not link.
//
//go:linkname restoreRand runtime.wasmenvRestoreRand
func restoreRand()

//go:linkname gcphase runtime.gcphase
var gcphase uint32
