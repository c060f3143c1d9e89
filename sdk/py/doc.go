// Package py gives tool code Python's semantics for the values a port of a
// Python environment (τ-bench's retail and airline) handles, so that its
// outputs are byte-identical to the original's:
//
//   - Value: a JSON value as json.loads gives it (dicts keep insertion
//     order, numbers stay ints or floats), encoded exactly as json.dumps
//     writes it (", " and ": " separators, ensure_ascii, float repr). Parse
//     reads a document; ParseLazy reads a record's top-level members only
//     and keeps each as its raw text until Get asks for it, so a write that
//     touches a few members neither parses nor re-encodes the rest; a
//     member read but not changed (no Set, Append or Del anywhere in it) is
//     written back as stored too. A Value (parsed or built) lives until
//     the tool call that made it returns (its memory is the next call's):
//     keep text between calls, never a Value.
//   - Num: int and float arithmetic with Python's types and round(x, 2).
//   - StrRepr, KeyError, Lower: Python's repr of a str, its KeyError text,
//     str.lower().
//   - Calculate: τ-bench's calculate tool, eval of an arithmetic expression
//     with Python 3.11's results and error texts.
//   - RecordText, LoadRecord, SaveRecord: a collection's records kept as
//     json.dumps text in a table (id, data), the ports' one storage layout.
//
// It is guest code: tool packages import it like sdk, the compiler embeds
// and stages it with sdk, and the rules of tool code hold for it (no
// package-level variables, no init, only the allowed standard packages;
// compiler's TestGuestLibrariesFollowToolRules): the memory its values
// are carved from (arena.go) is kept by the sdk (sdk.Scoped), which zeroes
// it when each call starts, so nothing of one call is visible to the next.
// It also builds for the host, where its tests run.
package py
