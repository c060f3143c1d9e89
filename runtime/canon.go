package runtime

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The state hash must be injective: two different exported states must not
// hash alike by construction (xxhash collisions aside). Three things used to
// break that: canonical JSON turned invalid UTF-8 (which tool code can write)
// into U+FFFD, so 'a\xff', 'a\xfe' and 'a\uFFFD' were one value; composite
// keys were joined with '|', so ('a|b','c') and ('a','b|c') were one key; and
// a NULL key column made the whole key NULL.

// viewKey is the key expression of a default view: the column as text for a
// one-column key, a JSON array of the columns for a composite one.
func viewKey(cols []string) string {
	if len(cols) == 1 {
		return "CAST(" + cols[0] + " AS TEXT)"
	}
	return "json_array(" + strings.Join(cols, ", ") + ")"
}

// canonRecord is a record's canonical form, tagged so that the forms cannot
// meet: 'n' for a deleted record, 'j' and sorted-key JSON (numbers as
// written) for valid UTF-8, 'r' and the raw text otherwise.
func canonRecord(rec json.RawMessage) ([]byte, error) {
	if rec == nil {
		return []byte("n"), nil
	}
	if !utf8.Valid(rec) {
		return append([]byte("r"), rec...), nil
	}
	if canon, ok := appendCanon(append(make([]byte, 0, len(rec)+1), 'j'), rec); ok {
		return canon, nil
	}
	return slowCanonRecord(rec)
}

// slowCanonRecord is canonRecord through encoding/json: what appendCanon
// must equal, and what runs where it declines.
func slowCanonRecord(rec json.RawMessage) ([]byte, error) {
	v, err := decodeJSON(rec)
	if err != nil {
		return nil, err
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte("j"), canon...), nil
}

// writeField writes a length-prefixed string, so that no two sequences of
// fields run together alike.
func writeField(w io.Writer, s string) {
	var n [24]byte
	w.Write(append(strconv.AppendInt(n[:0], int64(len(s)), 10), ':')) // fmt.Fprintf's "%d:", without its cost
	io.WriteString(w, s)
}
