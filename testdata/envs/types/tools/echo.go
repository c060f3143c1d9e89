package tools

import "github.com/wasmenv/wasmenv/sdk"

// Color is a named string type.
type Color string

// Item is a nested struct.
type Item struct {
	// Item id.
	ID string `json:"id"`
	// Quantity.
	Qty int `json:"qty"`
	// Unit price.
	Price float64 `json:"price"`
	// Optional note.
	Note *string `json:"note,omitempty"`
	// Tags.
	Tags []string `json:"tags,omitempty"`
}

// EchoArgs covers every supported argument type.
type EchoArgs struct {
	// A string.
	S string `json:"s"`
	// An integer.
	I int64 `json:"i"`
	// A small integer.
	I32 int32 `json:"i32"`
	// An unsigned integer.
	U uint `json:"u"`
	// A float.
	F float64 `json:"f"`
	// A boolean.
	B bool `json:"b"`
	// An enum of a named type.
	C Color `json:"c" enum:"red,green"`
	// Nested structs.
	Items []Item `json:"items"`
	// A map.
	M map[string]string `json:"m"`
	// Anything.
	A any `json:"a"`
	// Optional pointer to a struct.
	P *Item `json:"p,omitempty"`
	// Optional list of lists.
	LL [][]int `json:"ll,omitempty"`
	// Field with a default name.
	DefaultName string `json:",omitempty"`
	// Ignored.
	Skip string `json:"-"`
}

// Echo returns its arguments re-encoded by the generated encoder.
func Echo(args EchoArgs) (EchoArgs, error) { return args, nil }

// Rows returns a query result as JSON.
func Rows() (sdk.Rows, error) {
	return sdk.Query(`SELECT 1 AS one, 2.5 AS two, 'x' AS three, NULL AS four, x'00ff' AS five`)
}

// Nothing takes no arguments and returns a pointer.
func Nothing() (*Item, error) { return nil, nil }
