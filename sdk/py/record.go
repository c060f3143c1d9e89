package py

import (
	"github.com/wasmenv/wasmenv/sdk"
)

// Records: a port keeps each collection of its Python environment's data in
// a table (id TEXT PRIMARY KEY, data TEXT) whose data is the record as the
// text json.dumps writes, so a record that is only read is returned as
// stored, without parsing. The table name is the port's own constant.

// RecordText returns the stored text of a record, or "" when there is none.
func RecordText(table, id string) (string, error) {
	text, _, err := sdk.QueryText(`SELECT data FROM `+table+` WHERE id = ?`, id)
	return text, err
}

// LoadRecord returns a record as an ordered value, or nil when there is
// none. Its members stay raw json.dumps text until read (ParseLazy), and
// unread members are written back as they are.
func LoadRecord(table, id string) (*Value, error) {
	text, err := RecordText(table, id)
	if err != nil || text == "" {
		return nil, err
	}
	return ParseLazy(text)
}

// SaveRecord writes a record back as json.dumps text and returns that text.
// wasmenv's diff compares JSON values (dicts without regard to key order,
// numbers as written, as τ-bench's state hash does), so a record written
// unchanged, or changed and changed back, adds nothing to it.
func SaveRecord(table, id string, v *Value) (string, error) {
	text := v.Encode()
	_, err := sdk.Exec(`UPDATE `+table+` SET data = ? WHERE id = ?`, text, id)
	return text, err
}
