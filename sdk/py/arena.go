package py

import "github.com/wasmenv/wasmenv/sdk"

// Every Value (parsed, or built by Str, Number, Object, List, Strings),
// and the key and value slices of objects, are carved from chunks that one
// tool call uses and the next call reuses (sdk.Scoped): a write tool
// parses a few records, a few hundred values, and allocating them afresh
// each call cost the guest more than parsing them (an allocation ~0.3 µs,
// and a share of a GC cycle for its garbage). So a Value lives until the
// tool call that made it returns: keep its text (Encode) between calls,
// never the Value (tool code keeps nothing between calls: it may declare
// no package-level variables). Outside a guest no call starts, and each
// chunk is garbage once its values are.

// Chunk sizes: a retail write parses ~150–300 values.
const (
	chunkValues = 512
	chunkKeys   = 512
)

type arena struct {
	vals []Value
	nv   int
	keys []string
	nk   int
	ptrs []*Value
	np   int
}

// callArena is this call's arena, kept by the sdk (sdk.Scoped: a guest
// library declares no variables).
func callArena() *arena {
	return sdk.Scoped(sdk.ScopePy, newArena).(*arena)
}

func newArena() sdk.CallScoped { return new(arena) }

// StartCall takes back what the last call carved, zeroed (nothing of it is
// reachable from the new call).
func (a *arena) StartCall() {
	clear(a.vals[:a.nv])
	clear(a.keys[:a.nk])
	clear(a.ptrs[:a.np])
	a.nv, a.nk, a.np = 0, 0, 0
}

// value returns a zero value carved from the chunk.
func (a *arena) value() *Value {
	if a.nv == len(a.vals) {
		a.vals, a.nv = make([]Value, chunkValues), 0
	}
	v := &a.vals[a.nv]
	a.nv++
	return v
}

// members returns empty key and value slices of capacity n (an object that
// outgrows them appends into slices of its own).
func (a *arena) members(n int) ([]string, []*Value) {
	if a.nk+n > len(a.keys) {
		a.keys, a.nk = make([]string, max(chunkKeys, n)), 0
	}
	keys := a.keys[a.nk : a.nk : a.nk+n]
	a.nk += n
	return keys, a.elems(n)
}

// elems returns an empty slice of capacity n for a list's elements or an
// object's values.
func (a *arena) elems(n int) []*Value {
	if a.np+n > len(a.ptrs) {
		a.ptrs, a.np = make([]*Value, max(chunkKeys, n)), 0
	}
	vals := a.ptrs[a.np : a.np : a.np+n]
	a.np += n
	return vals
}
