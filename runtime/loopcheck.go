package runtime

import (
	"encoding/binary"
	"errors"
)

// interruptGlobal is the export name of the global that instrumentLoops
// adds: the host sets it to 1 to stop a running call.
const interruptGlobal = "wasmenv_interrupt"

// yieldEvery is how many loop iterations the guest runs between calls to
// sched_yield: checkEvery iterations of one loop between reads of the
// interrupt, yieldEvery/checkEvery such reads between yields.
const (
	yieldEvery = 1 << 16
	checkEvery = 1 << 10
)

// instrumentLoops rewrites a module so that every loop header counts its
// passes in a new local of the function, and every checkEvery passes
//
//   - reads a new exported i32 global and traps (unreachable) once the host
//     has set it: "global.get $g; if; unreachable; end", and
//   - counts down a second new global and, every yieldEvery/checkEvery
//     such checks, calls the module's own sched_yield import.
//
// The count is a local (a register): Go's wasm code passes a loop header
// at every function entry and every backward jump, and reading and
// writing globals there cost ~20% of a τ-bench retail write under wazero.
// A local starts at 0 in each activation, so a function entered again and
// again never reaches checkEvery by itself; its caller's loop counts
// those entries. Every run that does not end has an activation that
// never returns and so passes its own loop headers without end (Go's
// goroutine switches unwind the wasm stack and re-enter it, from the
// runtime's scheduling loop, which is such an activation): the interrupt
// is read within checkEvery iterations of the innermost running loop.
//
// A few instructions per iteration is what makes a runaway tool stoppable;
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
	var params []int // by type index
	var funcTypes []uint32
	for _, s := range secs {
		var err error
		switch s.id {
		case 1:
			params, err = scanTypes(s.body)
		case 2:
			importedGlobals, yieldFunc, err = scanImports(s.body)
		case 3:
			r := &wreader{b: s.body}
			for range r.u32() {
				funcTypes = append(funcTypes, r.u32())
			}
			err = r.err
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
	nparams := make([]int, len(funcTypes))
	for i, t := range funcTypes {
		if int(t) >= len(params) {
			return nil, errors.New("bad function type index")
		}
		nparams[i] = params[t]
	}
	global := uint64(max(importedGlobals, 0) + definedGlobals)
	budget := global + 1
	// check is the code at a loop header, for the counting local L:
	//   local.get L; i32.const 1; i32.add; local.tee L; i32.const checkEvery; i32.ge_u; if
	//     i32.const 0; local.set L
	//     global.get $intr; if; unreachable; end
	//     global.get $budget; i32.const 1; i32.sub; global.set $budget
	//     global.get $budget; i32.eqz; if; i32.const N; global.set $budget; call $yield; drop; end
	//   end
	check := func(b []byte, local uint64) []byte {
		b = binary.AppendUvarint(append(b, 0x20), local)
		b = append(b, 0x41, 0x01, 0x6A, 0x22)
		b = binary.AppendUvarint(b, local)
		b = appendSleb(append(b, 0x41), checkEvery)
		b = append(b, 0x4F, 0x04, 0x40, 0x41, 0x00, 0x21)
		b = binary.AppendUvarint(b, local)
		b = binary.AppendUvarint(append(b, 0x23), global)
		b = append(b, 0x04, 0x40, 0x00, 0x0B)
		b = binary.AppendUvarint(append(b, 0x23), budget)
		b = append(b, 0x41, 0x01, 0x6B, 0x24)
		b = binary.AppendUvarint(b, budget)
		b = binary.AppendUvarint(append(b, 0x23), budget)
		b = append(b, 0x45, 0x04, 0x40, 0x41)
		b = appendSleb(b, yieldEvery/checkEvery)
		b = binary.AppendUvarint(append(b, 0x24), budget)
		b = binary.AppendUvarint(append(b, 0x10), uint64(yieldFunc))
		return append(b, 0x1A, 0x0B, 0x0B)
	}

	out := append([]byte(nil), mod[:8]...)
	exported := false
	for _, s := range secs {
		body := s.body
		switch s.id {
		case 6: // two more globals: (mut i32) (i32.const 0) and (mut i32) (i32.const N)
			_, k := binary.Uvarint(body)
			body = append(binary.AppendUvarint(nil, uint64(definedGlobals+2)), body[k:]...)
			body = append(body, 0x7F, 0x01, 0x41, 0x00, 0x0B)
			body = appendSleb(append(body, 0x7F, 0x01, 0x41), yieldEvery/checkEvery)
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
			if body, err = instrumentCode(body, nparams, check); err != nil {
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

// scanTypes returns the number of parameters of each function type.
func scanTypes(b []byte) ([]int, error) {
	r := &wreader{b: b}
	n := r.u32()
	var params []int
	for range n {
		if r.byte() != 0x60 {
			return nil, errors.New("unknown type form")
		}
		np := r.u32()
		r.skip(int(np))
		r.skip(int(r.u32()))
		params = append(params, int(np))
	}
	return params, r.err
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

// instrumentCode gives every function one more local, an i32 after its
// parameters and locals, and inserts check (for that local) after the block
// type of every loop.
func instrumentCode(b []byte, nparams []int, check func(b []byte, local uint64) []byte) ([]byte, error) {
	r := &wreader{b: b}
	n := r.u32()
	if int(n) != len(nparams) {
		return nil, errors.New("function and code sections differ")
	}
	out := binary.AppendUvarint(make([]byte, 0, len(b)+len(b)/8), uint64(n))
	var fn, code []byte
	for f := range n {
		size := int(r.u32())
		if r.err != nil || size > len(r.b)-r.i {
			return nil, errors.New("bad function body")
		}
		body := &wreader{b: r.b[r.i : r.i+size]}
		r.i += size
		groups := body.u32()
		fn = binary.AppendUvarint(fn[:0], uint64(groups)+1)
		local := uint64(nparams[f])
		start := body.i
		for range groups {
			local += uint64(body.u32())
			body.byte()
		}
		if local >= 50000 { // wazero's (and the spec's usual) limit on locals
			return nil, errors.New("too many locals")
		}
		fn = append(fn, body.b[start:body.i]...)
		fn = append(fn, 0x01, 0x7F) // one i32: the loop count
		code = check(code[:0], local)
		last := body.i
		for body.i < len(body.b) && body.err == nil {
			op := body.byte()
			body.immediates(op)
			if op == 0x03 {
				fn = append(fn, body.b[last:body.i]...)
				fn = append(fn, code...)
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
