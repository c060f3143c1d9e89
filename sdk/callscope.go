package sdk

// Call scope: memory that lives for one tool call. The guest runs one call
// at a time, and nothing a call built is reachable by the next one unless
// tool code keeps it in a package variable; a package that hands out such
// memory (sdk/py's parsed values) registers here to take it back when the
// next call starts, instead of allocating afresh each call (an allocation
// costs the guest ~0.3 µs, and its garbage a share of a GC cycle).

var callStarts []func()

// OnCallStart registers f to run before each tool call (from an init
// function). What f releases must not be reachable from anything a tool
// keeps between calls.
func OnCallStart(f func()) { callStarts = append(callStarts, f) }

// StartCall runs the OnCallStart functions (sdk/gen, before each call).
func StartCall() {
	for _, f := range callStarts {
		f()
	}
}
