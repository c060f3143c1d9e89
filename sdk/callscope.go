package sdk

// Call scope: memory that lives for one tool call. The guest runs one call
// at a time, and tool code keeps nothing between calls (it may declare no
// package-level variables), so what a call built is unreachable once it
// returns. A guest library that hands out such memory (sdk/py's values)
// keeps it here, where it is taken back when the next call starts instead
// of allocated afresh each call (an allocation costs the guest ~0.3 µs,
// and its garbage a share of a GC cycle). Guest libraries follow the rules
// of tool code (no package-level variables, no init), so the sdk, whose
// own buffers are reused the same way, holds the state for them.

// CallScoped is memory a guest library reuses from call to call; StartCall
// takes back (and zeroes) what the last call used: nothing of one call may
// be visible to the next.
type CallScoped interface{ StartCall() }

// The call-scoped slots, one per guest library.
const (
	ScopePy = iota // sdk/py's values
	numScopes
)

var scopes [numScopes]CallScoped

// Scoped returns the library's call-scoped memory, made by mk on first use.
func Scoped(slot int, mk func() CallScoped) CallScoped {
	s := scopes[slot]
	if s == nil {
		s = mk()
		scopes[slot] = s
	}
	return s
}

// StartCall starts a tool call's scope (sdk/gen, before each call).
func StartCall() {
	callResults.reset()
	for _, s := range scopes {
		if s != nil {
			s.StartCall()
		}
	}
}
