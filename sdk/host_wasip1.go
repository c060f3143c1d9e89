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

var respBuf []byte

// hostSQL sends a request and receives the response in two steps: the host
// answers with the response size, the guest makes room and takes it. A
// response the caller keeps (a query's rows) gets a buffer of its own;
// others reuse one.
func hostSQL(req []byte, keep bool) ([]byte, error) {
	n := wasmenvSQL(unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	if n < 0 {
		return nil, errHost
	}
	if keep {
		b := make([]byte, n)
		if n > 0 {
			wasmenvTake(unsafe.Pointer(unsafe.SliceData(b)))
		}
		return b, nil
	}
	if cap(respBuf) < int(n) {
		respBuf = make([]byte, n)
	}
	respBuf = respBuf[:n]
	if n > 0 {
		wasmenvTake(unsafe.Pointer(unsafe.SliceData(respBuf)))
	}
	return respBuf, nil
}

func hostClock() int64   { return wasmenvClock() }
func hostRandom() uint64 { return wasmenvRandom() }

func hostLog(s string) {
	if len(s) > 0 {
		wasmenvLog(unsafe.Pointer(unsafe.StringData(s)), uint32(len(s)))
	}
}
