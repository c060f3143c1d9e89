package runtime

import (
	"encoding/binary"
	"errors"
)

// interruptGlobal is the export name of the global that instrumentLoops
// adds: the host sets it to 1 to stop a running call.
const interruptGlobal = "wasmenv_interrupt"

// yieldEvery is how many loop iterations the guest runs between calls to
// sched_yield.
const yieldEvery = 1 << 16

// instrumentLoops rewrites a module so that every loop header
//
//   - reads a new exported i32 global and traps (unreachable) once the host
//     has set it: "global.get $g; if; unreachable; end", and
//   - counts down a second new global and, every yieldEvery iterations,
//     calls the module's own sched_yield import.
//
// A load and a branch per iteration is what makes a runaway tool stoppable;
// wazero's own mechanism (WithCloseOnContextDone) leaves native code at every
// loop header and starts a goroutine per call, which costs more than the call
// itself. The yield matters as much as the check: compiled wasm code is not
// preemptible by the Go scheduler, so a guest spinning in a loop that never
// leaves it would hold its thread through a garbage collector's
// stop-the-world, which then waits for it forever, and the watchdog that
// should stop it never runs. Calling a host function now and then is a
// safepoint.
//
// It understands the instructions a Go wasip1 module uses (MVP, sign
// extension, saturating conversions, bulk memory) and fails on anything
// else; the caller then falls back to wazero's mechanism.
func instrumentLoops(mod []byte) ([]byte, error) {
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm module")
	}
	type section struct {
		id   byte
		body []byte
	}
	var secs []section
	for r := mod[8:]; len(r) > 0; {
		id := r[0]
		n, k := binary.Uvarint(r[1:])
		if k <= 0 || uint64(len(r)-1-k) < n {
			return nil, errors.New("bad section")
		}
		secs = append(secs, section{id, r[1+k : 1+k+int(n)]})
		r = r[1+k+int(n):]
	}
	importedGlobals, definedGlobals, yieldFunc := -1, -1, -1
	for _, s := range secs {
		var err error
		switch s.id {
		case 2:
			importedGlobals, yieldFunc, err = scanImports(s.body)
		case 6:
			n, k := binary.Uvarint(s.body)
			if k <= 0 {
				err = errors.New("bad global section")
			}
			definedGlobals = int(n)
		}
		if err != nil {
			return nil, err
		}
	}
	if definedGlobals < 0 {
		return nil, errors.New("no global section")
	}
	if yieldFunc < 0 {
		return nil, errors.New("module does not import wasi_snapshot_preview1.sched_yield")
	}
	global := uint64(max(importedGlobals, 0) + definedGlobals)
	budget := global + 1
	// global.get $intr; if; unreachable; end
	check := binary.AppendUvarint([]byte{0x23}, global)
	check = append(check, 0x04, 0x40, 0x00, 0x0B)
	// global.get $budget; i32.const 1; i32.sub; global.set $budget
	check = binary.AppendUvarint(append(check, 0x23), budget)
	check = append(check, 0x41, 0x01, 0x6B, 0x24)
	check = binary.AppendUvarint(check, budget)
	// global.get $budget; i32.eqz; if; i32.const N; global.set $budget; call $yield; drop; end
	check = binary.AppendUvarint(append(check, 0x23), budget)
	check = append(check, 0x45, 0x04, 0x40, 0x41)
	check = appendSleb(check, yieldEvery)
	check = binary.AppendUvarint(append(check, 0x24), budget)
	check = binary.AppendUvarint(append(check, 0x10), uint64(yieldFunc))
	check = append(check, 0x1A, 0x0B)

	out := append([]byte(nil), mod[:8]...)
	exported := false
	for _, s := range secs {
		body := s.body
		switch s.id {
		case 6: // two more globals: (mut i32) (i32.const 0) and (mut i32) (i32.const N)
			_, k := binary.Uvarint(body)
			body = append(binary.AppendUvarint(nil, uint64(definedGlobals+2)), body[k:]...)
			body = append(body, 0x7F, 0x01, 0x41, 0x00, 0x0B)
			body = appendSleb(append(body, 0x7F, 0x01, 0x41), yieldEvery)
			body = append(body, 0x0B)
		case 7:
			n, k := binary.Uvarint(body)
			nb := binary.AppendUvarint(nil, n+1)
			nb = append(nb, body[k:]...)
			nb = binary.AppendUvarint(nb, uint64(len(interruptGlobal)))
			nb = append(nb, interruptGlobal...)
			nb = append(nb, 0x03)
			body = binary.AppendUvarint(nb, global)
			exported = true
		case 10:
			var err error
			if body, err = instrumentCode(body, check); err != nil {
				return nil, err
			}
		}
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if !exported {
		return nil, errors.New("no export section")
	}
	return out, nil
}

// scanImports counts imported globals and finds the function index of
// wasi_snapshot_preview1.sched_yield (-1 if not imported).
func scanImports(b []byte) (globals, yield int, err error) {
	r := &wreader{b: b}
	n := r.u32()
	funcs := 0
	yield = -1
	for range n {
		module := r.name()
		name := r.name()
		switch r.byte() {
		case 0:
			r.u32()
			if module == "wasi_snapshot_preview1" && name == "sched_yield" {
				yield = funcs
			}
			funcs++
		case 1:
			r.byte()
			r.limits()
		case 2:
			r.limits()
		case 3:
			r.byte()
			r.byte()
			globals++
		case 4:
			r.byte()
			r.u32()
		default:
			r.err = errors.New("unknown import kind")
		}
	}
	return globals, yield, r.err
}

// appendSleb appends a signed LEB128 integer.
func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// instrumentCode inserts check after the block type of every loop.
func instrumentCode(b []byte, check []byte) ([]byte, error) {
	r := &wreader{b: b}
	n := r.u32()
	out := binary.AppendUvarint(make([]byte, 0, len(b)+len(b)/8), uint64(n))
	var fn []byte
	for range n {
		size := int(r.u32())
		if r.err != nil || size > len(r.b)-r.i {
			return nil, errors.New("bad function body")
		}
		body := &wreader{b: r.b[r.i : r.i+size]}
		r.i += size
		fn = fn[:0]
		for range body.u32() { // locals
			body.u32()
			body.byte()
		}
		fn = append(fn, body.b[:body.i]...)
		last := body.i
		for body.i < len(body.b) && body.err == nil {
			op := body.byte()
			body.immediates(op)
			if op == 0x03 {
				fn = append(fn, body.b[last:body.i]...)
				fn = append(fn, check...)
				last = body.i
			}
		}
		if body.err != nil {
			return nil, body.err
		}
		fn = append(fn, body.b[last:]...)
		out = binary.AppendUvarint(out, uint64(len(fn)))
		out = append(out, fn...)
	}
	return out, r.err
}

// wreader reads a wasm binary; the first error sticks.
type wreader struct {
	b   []byte
	i   int
	err error
}

func (r *wreader) byte() byte {
	if r.i >= len(r.b) {
		r.fail()
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *wreader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated wasm")
	}
	r.i = len(r.b)
}

func (r *wreader) u32() uint32 {
	v, k := binary.Uvarint(r.b[min(r.i, len(r.b)):])
	if k <= 0 {
		r.fail()
		return 0
	}
	r.i += k
	return uint32(v)
}

// leb skips a LEB128 number of any width and sign.
func (r *wreader) leb() {
	for r.byte()&0x80 != 0 && r.err == nil {
	}
}

func (r *wreader) name() string {
	n := int(r.u32())
	if n < 0 || n > len(r.b)-r.i {
		r.fail()
		return ""
	}
	s := string(r.b[r.i : r.i+n])
	r.i += n
	return s
}

func (r *wreader) skip(n int) {
	if n < 0 || n > len(r.b)-r.i {
		r.fail()
		return
	}
	r.i += n
}

func (r *wreader) limits() {
	if r.byte()&1 != 0 {
		r.u32()
		r.u32()
	} else {
		r.u32()
	}
}

// immediates skips the immediates of op.
func (r *wreader) immediates(op byte) {
	switch {
	case op == 0x02 || op == 0x03 || op == 0x04: // block type
		switch c := r.byte(); {
		case c == 0x40 || c >= 0x6F && c <= 0x7F:
		default:
			r.i--
			r.u32() // s33 type index (a LEB either way)
		}
	case op <= 0x01 || op == 0x05 || op == 0x0B || op == 0x0F || op == 0x1A || op == 0x1B || op == 0xD1:
	case op == 0x0C || op == 0x0D || op == 0x10 || op == 0x12 || op == 0xD2 || op >= 0x20 && op <= 0x26:
		r.u32()
	case op == 0x0E:
		for range r.u32() {
			r.u32()
		}
		r.u32()
	case op == 0x11 || op == 0x13:
		r.u32()
		r.u32()
	case op == 0x1C:
		r.skip(int(r.u32()))
	case op >= 0x28 && op <= 0x3E: // memarg
		r.u32()
		r.u32()
	case op == 0x3F || op == 0x40:
		r.u32()
	case op == 0x41 || op == 0x42:
		r.leb()
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op >= 0x45 && op <= 0xC4:
	case op == 0xD0:
		r.byte()
	case op == 0xFC:
		switch sub := r.u32(); {
		case sub <= 7:
		case sub == 8 || sub == 10 || sub == 12 || sub == 14:
			r.u32()
			r.u32()
		case sub == 9 || sub == 11 || sub == 13 || sub >= 15 && sub <= 17:
			r.u32()
		default:
			r.err = errors.New("unsupported 0xFC instruction")
		}
	default:
		r.err = errors.New("unsupported instruction")
		r.i = len(r.b)
	}
}
