package runtime

import (
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// WrittenFunc names the SQL function that gives checks the episode's
// change set (issue 35): wasmenv_written(table) is the JSON array of the
// rowids the episode wrote in table since its reset ('[]' when none), or
// NULL when the table must be read whole (a WITHOUT ROWID table, one
// written past maxTrackedRows, tracking off, a name that is no rowid table
// of main).
//
// main began as init, so at every rowid absent from the array main and
// init hold the same row (tracking.go): a check that compares the two
// tables can compare them at these rowids only, and a table with no change
// costs nothing. Checks synthesized by wasmenv use it (synth/tasks), each
// with the whole-table comparison as its fallback for NULL; hand-written
// checks may too. Its value changes as the episode writes, so SQLite never
// treats it as constant.
const WrittenFunc = envpkg.WrittenFunc

// registerWritten installs WrittenFunc on an episode connection; rowTables
// maps the lower-cased names of main's rowid tables to their spelling.
func (c *sqlConn) registerWritten(rowTables map[string]string) error {
	return createFunction(c.conn, WrittenFunc, 1, 0, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		name, ok := rowTables[strings.ToLower(arg[0].Text())]
		if !ok {
			ctx.ResultNull()
			return
		}
		ids, ok := c.track.written(name)
		if !ok {
			ctx.ResultNull()
			return
		}
		ctx.ResultText(string(ids))
	})
}
