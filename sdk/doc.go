// Package sdk is what environment tool code imports. It runs inside the
// sandboxed WebAssembly guest and reaches the outside world only through the
// wasmenv host ABI: parameterized SQL on the episode's database, the episode's
// seeded clock and random source, and a log line. There are no files, sockets
// or environment variables in the guest.
//
// A tool is an exported function in package tools:
//
//	// GetUser returns a user's profile.
//	func GetUser(args GetUserArgs) (any, error)
//
// Its single argument is a struct whose fields (with json tags and doc
// comments) become the tool's JSON Schema. A returned string is passed to the
// agent as is; any other value is encoded as JSON. A returned error becomes a
// tool error the agent sees as "Error: <message>", and the call's writes are
// rolled back.
//
// Outside the guest (go vet, go test on the host) the database functions
// return ErrNoHost, so tool packages still build and type-check normally.
//
// The JSON Encoder and Decoder in this package are reflection-free; the
// compiler generates code that uses them to decode arguments and encode
// results, because encoding/json costs ~14 µs a call inside the guest.
// What only that generated code uses (the dispatcher, the exports the host
// calls, argument-error constructors) is package sdk/gen; sdk/wire is the
// byte format of the host ABI.
package sdk
