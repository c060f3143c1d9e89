package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// AllocArgs sizes an allocation.
type AllocArgs struct {
	// Bytes to allocate and drop.
	Bytes int `json:"bytes"`
}

// Alloc allocates garbage: a call that needs memory must get it however
// much garbage earlier calls left.
func Alloc(args AllocArgs) (int, error) {
	b := make([]byte, args.Bytes)
	b[len(b)-1] = 1
	return len(b), nil
}

// Clock shows the episode clock (time.Now is refused in tool code: its
// monotonic reading counts the instance's history).
func Clock() (string, error) {
	return sdk.Now().Format(time.RFC3339Nano), nil
}

// Order ranges over a map, which Go randomizes.
func Order() (string, error) {
	m := map[string]int{}
	for i := range 16 {
		m[fmt.Sprint("k", i)] = i
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return strings.Join(keys, ","), nil
}

// PointerArgs sizes the garbage allocated before the pointer is taken.
type PointerArgs struct {
	// Objects to allocate first (moves the heap).
	Objects int `json:"objects"`
}

type holder struct {
	N int
	P *int
}

// Pointer prints a struct holding a pointer with %v, which shows the
// pointer's address: a heap address depends on the instance's history.
func Pointer(args PointerArgs) (string, error) {
	var keep [][]byte
	for range args.Objects {
		keep = append(keep, make([]byte, 48))
	}
	x := len(keep)
	format := "%" + "v" // built at run time: the static %p rule cannot see it
	return fmt.Sprintf(format, holder{N: x, P: &x}) + fmt.Sprint(" ", &keep[0]), nil
}

// Counters reads SQLite's connection counters from SQL.
func Counters() (sdk.Row, error) {
	return sdk.QueryRow(`SELECT last_insert_rowid() AS last, changes() AS changes, total_changes() AS total`)
}

// AddArgs names a new item.
type AddArgs struct {
	// The item's name.
	Name string `json:"name"`
}

// Add inserts an item (its trigger writes two audit rows) and reports
// what sdk.Exec said.
func Add(args AddArgs) (map[string]int64, error) {
	return result(sdk.Exec(`INSERT INTO item (name) VALUES (?)`, args.Name))
}

func result(r sdk.Result, err error) (map[string]int64, error) {
	return map[string]int64{"rows": r.RowsAffected, "last_id": r.LastInsertID}, err
}

// Touch runs an UPDATE that matches nothing and reports what sdk.Exec said.
func Touch() (map[string]int64, error) {
	return result(sdk.Exec(`UPDATE item SET name = name WHERE id < 0`))
}

// RemoveArgs selects an item.
type RemoveArgs struct {
	// The item's id.
	ID int `json:"id"`
}

// Remove deletes an item (its parts go by cascade) and reports sdk.Exec's result.
func Remove(args RemoveArgs) (map[string]int64, error) {
	return result(sdk.Exec(`DELETE FROM item WHERE id = ?`, args.ID))
}

// PageArgs selects a page of items.
type PageArgs struct {
	// Items per page.
	Limit int `json:"limit"`
	// Items to skip.
	Offset int `json:"offset"`
}

// Page lists item names a page at a time (a bound LIMIT, which SQLite plans
// with: the runtime keeps an unchanged one bound rather than re-prepare).
func Page(args PageArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT name FROM item ORDER BY id LIMIT ? OFFSET ?`, args.Limit, args.Offset)
}
