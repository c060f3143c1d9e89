package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// StateHash identifies the episode's state: a hash of the bundle, the
// initial state and the canonical diff (collections and keys sorted, records
// with sorted keys). Equal hashes mean equal exported states.
//
// It does not build the Diff (issue 13 item 2): it hashes one collection
// at a time, holding the changed keys and at most hashChunkBytes of
// records (hashCollection), so its memory follows the keys, not the
// records. The value is hashDiff's for the materialised Diff, byte for
// byte (TestStateHashStreamsTheSameHash holds the two together).
func (ep *Episode) StateHash() (h string, err error) {
	if ep.closed {
		return "", ErrClosed
	}
	defer ep.enter()()
	err = ep.bundleSQL(context.Background(), func() error { h, err = ep.streamHash(); return err })
	if err == nil {
		ep.stateHash = h
	}
	return h, err
}

// hashPrefix starts a state hash: the bundle and the initial state.
func (ep *Episode) hashPrefix() *xxhash.Digest {
	h := xxhash.New()
	h.WriteString(ep.env.Bundle.Hash + "\x00" + ep.init.name[strings.Index(ep.init.name, "-init"):] + "\x00")
	return h
}

// hashRecord adds one (collection, key, record) to a state hash; canon is
// the record's canonRecord when known, else nil.
func hashRecord(h *xxhash.Digest, name, key string, rec json.RawMessage, canon []byte) error {
	if canon == nil {
		var err error
		if canon, err = canonRecord(rec); err != nil {
			return err
		}
	}
	writeField(h, name)
	writeField(h, key)
	writeField(h, string(canon))
	return nil
}

// hashDiff hashes a materialised diff (DiffAndHash has it anyway), with
// the records' canonical forms where canons has them.
func (ep *Episode) hashDiff(d Diff, canons map[string]map[string][]byte) (string, error) {
	h := ep.hashPrefix()
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		keys := make([]string, 0, len(d[n]))
		for k := range d[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := hashRecord(h, n, k, d[n][k], canons[n][k]); err != nil {
				return "", err
			}
		}
	}
	return fmt.Sprintf("%016x", h.Sum64()), nil
}

// hashChunkBytes is the records the state hash holds at once, at least (a
// variable for the tests, which make it tiny to exercise the chunked passes).
// maxHashPasses bounds the extra passes of the diff query past it: each pass
// costs a whole diff query (a second or more for 50 MB on a busy machine),
// and the hash runs under the bundle-SQL deadline (10 s by default), so
// memory is traded for time: a chunk is the larger of hashChunkBytes and
// the records / maxHashPasses (8 passes of 48 MB went past 10 s under load).
var hashChunkBytes = 2 << 20

var maxHashPasses = 4

// streamHash is hashDiff without the Diff.
func (ep *Episode) streamHash() (string, error) {
	groups := map[string][]*view{}
	for i := range ep.env.views {
		if v := &ep.env.views[i]; ep.viewTouched(v) {
			groups[v.name] = append(groups[v.name], v)
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	h := ep.hashPrefix()
	for _, n := range names {
		if err := ep.hashCollection(h, n, groups[n]); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%016x", h.Sum64()), nil
}

// scanViews is scanView over the views sharing one name, in order: their
// calls, kept last-wins per key, are Diff's map for that name.
func (ep *Episode) scanViews(views []*view, f func(key string, rec json.RawMessage, canon []byte) error) error {
	for _, v := range views {
		if err := ep.scanView(v, f); err != nil {
			return err
		}
	}
	return nil
}

// hashCollection hashes one collection's records in key order. The hash
// needs them sorted, and SQLite would sort them in memory (the mvcc VFS
// keeps temporary files in memory), so the records are not all held:
// a first pass keeps each key's record size, and only the records while
// they stay under hashChunkBytes (the usual case: then that pass is the
// only one). Past that, the sorted keys are cut into ranges of about a
// chunk of records (see maxHashPasses), and one more pass of the diff query
// per range collects and hashes that range. Restricted to a key range, the
// records kept are Diff's, so the hash is hashDiff's; memory follows the
// keys and the chunk, not all the records.
func (ep *Episode) hashCollection(h *xxhash.Digest, name string, views []*view) error {
	sizes := map[string]int{}
	recs := map[string]json.RawMessage{}
	held := 0
	err := ep.scanViews(views, func(key string, rec json.RawMessage, canon []byte) error {
		sizes[key] = len(key) + len(rec)
		if recs == nil {
			return nil
		}
		if old, ok := recs[key]; ok {
			held -= len(key) + len(old)
		}
		recs[key] = bytes.Clone(rec)
		if held += len(key) + len(rec); held > hashChunkBytes {
			recs = nil // too many to hold: chunked passes below
		}
		return nil
	})
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(sizes))
	total := 0
	for k, n := range sizes {
		keys = append(keys, k)
		total += n
	}
	sort.Strings(keys)
	if recs != nil {
		return hashSorted(h, name, keys, recs)
	}
	limit := max(hashChunkBytes, (total+maxHashPasses-1)/maxHashPasses)
	for lo := 0; lo < len(keys); {
		hi, chunk := lo, 0
		for hi < len(keys) && (hi == lo || chunk+sizes[keys[hi]] <= limit) {
			chunk += sizes[keys[hi]]
			hi++
		}
		first, last := keys[lo], keys[hi-1]
		recs := make(map[string]json.RawMessage, hi-lo)
		err := ep.scanViews(views, func(key string, rec json.RawMessage, _ []byte) error {
			if key >= first && key <= last {
				recs[key] = bytes.Clone(rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := hashSorted(h, name, keys[lo:hi], recs); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// hashSorted hashes the records of sorted keys.
func hashSorted(h *xxhash.Digest, name string, keys []string, recs map[string]json.RawMessage) error {
	for _, k := range keys {
		if err := hashRecord(h, name, k, recs[k], nil); err != nil {
			return err
		}
	}
	return nil
}
