//go:build wasip1

package sdk

import "unsafe"

//go:wasmimport wasmenv sql
func wasmenvSQL(req unsafe.Pointer, n uint32) int32

//go:wasmimport wasmenv take
func wasmenvTake(dst unsafe.Pointer)

//go:wasmimport wasmenv clock
func wasmenvClock() int64

//go:wasmimport wasmenv random
func wasmenvRandom() uint64

//go:wasmimport wasmenv log
func wasmenvLog(msg unsafe.Pointer, n uint32)

// hostSend sends a request; the host answers with the response size, and
// keeps the response until hostTake copies it into a buffer of that size
// (the caller's, which decides whether the response is kept).
func hostSend(req []byte) (int, error) {
	n := wasmenvSQL(unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	if n < 0 {
		return 0, errHost
	}
	return int(n), nil
}

func hostTake(dst []byte) {
	if len(dst) > 0 {
		wasmenvTake(unsafe.Pointer(unsafe.SliceData(dst)))
	}
}

func hostClock() int64   { return wasmenvClock() }
func hostRandom() uint64 { return wasmenvRandom() }

func hostLog(s string) {
	if len(s) > 0 {
		wasmenvLog(unsafe.Pointer(unsafe.StringData(s)), uint32(len(s)))
	}
}
