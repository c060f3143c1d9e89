package runtime

import (
	"strconv"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3"
)

// InitFunc names the SQL function that identifies an episode's initial
// state: wasmenv_init() is the same text on every connection over one
// initial state (the bundle's, or a task setup's) and a different text for
// any other initial state made in the process, even one made again under
// the same task id (a candidate's, see Candidate.Close).
//
// With WrittenFunc it lets guest code keep what it derived from an initial
// state across episodes: where wasmenv_init() answers what it answered
// then and a row's rowid is not in wasmenv_written(table), the row is the
// initial state's (the Python sdk keeps document collections parsed this
// way, internal/pywasm). It names no file, no task and no episode.
const InitFunc = "wasmenv_init"

var initSeq atomic.Uint64

// newInitID is a new initial state's InitFunc value.
func newInitID() string { return "init-" + strconv.FormatUint(initSeq.Add(1), 10) }

// registerInit installs InitFunc on a connection; connections are pooled
// per initial state, so its value is fixed for the connection's life.
func (c *sqlConn) registerInit() error {
	id := c.init.id
	return createFunction(c.conn, InitFunc, 0, sqlite3.DETERMINISTIC, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
		ctx.ResultText(id)
	})
}
