package runtime

import (
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// WrittenFunc names the SQL function that gives checks the episode's
// change set (issue 35): wasmenv_written(table) is the JSON array of the
// rowids the episode wrote in table since its reset ('[]' when none) or,
// for a WITHOUT ROWID table, of the written rows' primary keys, each a
// JSON array of its columns ([["a", 1]]); NULL when the table must be read
// whole (one written past maxTrackedRows, keyed by a real or a BLOB,
// tracking off, a name that is no table of main).
//
// main began as init, so at every rowid absent from the array main and
// init hold the same row (tracking.go): a check that compares the two
// tables can compare them at these rowids only, and a table with no change
// costs nothing. Checks synthesized by wasmenv use it (synth/tasks), each
// with the whole-table comparison as its fallback for NULL; hand-written
// checks may too. Its value changes as the episode writes, so SQLite never
// treats it as constant.
const WrittenFunc = envpkg.WrittenFunc

// registerWritten installs WrittenFunc on an episode connection; tables
// maps the lower-cased names of main's tables to their spelling.
func (c *sqlConn) registerWritten(tables map[string]string) error {
	return createFunction(c.conn, WrittenFunc, 1, 0, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		name, ok := tables[strings.ToLower(arg[0].Text())]
		if !ok {
			ctx.ResultNull()
			return
		}
		written := c.track.written
		if c.track.keyed[name] != nil {
			written = c.track.writtenKeys
		}
		ids, ok := written(name)
		if !ok {
			ctx.ResultNull()
			return
		}
		ctx.ResultText(string(ids))
	})
}
