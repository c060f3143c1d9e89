package tools

import (
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetArgs selects one key.
type GetArgs struct {
	// The key to read.
	Key string `json:"key"`
}

// Get returns the value stored under a key.
func Get(args GetArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT k, v, n FROM kv WHERE k = ?`, args.Key)
	if errors.Is(err, sdk.ErrNoRows) {
		return row, fmt.Errorf("key %q not found", args.Key)
	}
	return row, err
}

// PutArgs writes one key.
type PutArgs struct {
	// The key to write.
	Key string `json:"key"`
	// The new value.
	Value string `json:"value"`
	// A counter stored beside the value.
	N *int `json:"n,omitempty"`
}

// Put stores a value under a key and logs the change with the episode clock.
func Put(args PutArgs) (string, error) {
	n := 0
	if args.N != nil {
		n = *args.N
	}
	if _, err := sdk.Exec(`INSERT INTO kv (k, v, n) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = excluded.n`, args.Key, args.Value, n); err != nil {
		return "", err
	}
	if _, err := sdk.Exec(`INSERT INTO log (at, msg) VALUES (?, ?)`, sdk.Now().Format("2006-01-02T15:04:05Z"), "put "+args.Key); err != nil {
		return "", err
	}
	return "ok", nil
}

// DeleteArgs removes keys.
type DeleteArgs struct {
	// Keys to delete; every one must exist.
	Keys []string `json:"keys"`
}

// Delete removes keys. If one is missing nothing is deleted.
func Delete(args DeleteArgs) (map[string]any, error) {
	for _, k := range args.Keys {
		res, err := sdk.Exec(`DELETE FROM kv WHERE k = ?`, k)
		if err != nil {
			return nil, err
		}
		if res.RowsAffected == 0 {
			return nil, fmt.Errorf("key %q not found", k)
		}
	}
	return map[string]any{"deleted": len(args.Keys)}, nil
}

// Summary is a result struct with nested values.
type Summary struct {
	Count int      `json:"count"`
	Keys  []string `json:"keys"`
	Total float64  `json:"total"`
	Note  string   `json:"note,omitempty"`
}

// ListArgs filters the listing.
type ListArgs struct {
	// Only keys with at least this counter.
	MinN int `json:"min_n,omitempty"`
	// Sort order.
	Order string `json:"order,omitempty" enum:"asc,desc"`
}

// List summarizes the store.
func List(args ListArgs) (Summary, error) {
	order := "ASC"
	if args.Order == "desc" {
		order = "DESC"
	}
	rows, err := sdk.Query(`SELECT k, n FROM kv WHERE n >= ? ORDER BY k `+order, args.MinN)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Keys: []string{}}
	for _, r := range rows.All() {
		s.Count++
		s.Keys = append(s.Keys, r.String("k"))
		s.Total += r.Float("n") / 2
	}
	return s, nil
}

// Roll returns random draws from the episode's seeded generator and the clock.
func Roll() (map[string]any, error) {
	return map[string]any{"a": sdk.RandIntn(1000000), "b": sdk.RandIntn(1000000), "now": sdk.Now().Format("2006-01-02T15:04:05.000Z")}, nil
}
