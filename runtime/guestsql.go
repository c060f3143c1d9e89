package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/internal/sqlrules"
	"github.com/wasmenv/wasmenv/sdk/wire"
)

// authorize is the SQLite authorizer. Host statements pass; statements the
// guest (or a task check) prepares follow guestAllowed.
func (ep *Episode) authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	if !ep.authGuest {
		return sqlite3.AUTH_OK
	}
	if !guestAllowed(action, name3rd, name4th, schema) {
		return sqlite3.AUTH_DENY
	}
	if action == sqlite3.AUTH_INSERT || action == sqlite3.AUTH_UPDATE || action == sqlite3.AUTH_DELETE {
		ep.writes = append(ep.writes, name3rd)
	}
	return sqlite3.AUTH_OK
}

// guestAllowed is the one rule for SQL from a bundle (internal/sqlrules),
// shared with the compiler.
func guestAllowed(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema string) bool {
	return sqlrules.Allowed(action, name3rd, name4th, schema)
}

// restrict applies the guest rules to a whole connection (task setup),
// makes random() deterministic on it (a fixed seed: the setup runs once per
// Env, and every process must build the same initial state) and its date
// functions' 'now' the epoch (unix ns).
func restrict(conn *sqlite3.Conn, epoch int64) error {
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
	if err := seededRandom(conn, rand.NewPCG(0, 0x9e3779b97f4a7c15).Uint64); err != nil {
		return err
	}
	if err := sqlClock(conn, func() int64 { return epoch }); err != nil {
		return err
	}
	return conn.SetAuthorizer(sqlrules.Authorizer)
}

// execRestricted runs a script statement by statement, refusing the
// statements the authorizer cannot see (VACUUM) as for tool code.
func execRestricted(conn *sqlite3.Conn, script string) error {
	for rest := script; ; {
		if err := checkLead(rest); err != nil {
			return err
		}
		stmt, tail, err := conn.Prepare(rest)
		if err != nil {
			return err
		}
		if stmt == nil {
			return nil
		}
		err = stmt.Exec()
		stmt.Close()
		if err != nil {
			return err
		}
		rest = tail
	}
}

// createFunction registers a SQL function whose panics never unwind
// through SQLite (see resultOnPanic): every function wasmenv adds to a
// connection that runs bundle SQL goes through it.
func createFunction(conn *sqlite3.Conn, name string, nArg int, flags sqlite3.FunctionFlag, fn sqlite3.ScalarFunction) error {
	return conn.CreateFunction(name, nArg, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		defer resultOnPanic(ctx, name)
		fn(ctx, arg...)
	})
}

// resultOnPanic turns a panic inside a replaced function into the
// function's error. A panic must not unwind through SQLite's own frames:
// it would skip SQLite's cleanup and leave the episode's connection broken
// (and, repeated, SQLite's stack pointer wrapped). go-sqlite3 panics when
// setting a result runs the episode's heap out: that is SQLite's NOMEM, as
// a built-in function would report it.
func resultOnPanic(ctx sqlite3.Context, name string) {
	if v := recover(); v != nil {
		if isOOM(v) {
			ctx.ResultError(sqlite3.NOMEM)
			return
		}
		ctx.ResultError(fmt.Errorf("%s: %v", name, v))
	}
}

// seededRandom replaces SQLite's random() and randomblob() with the
// episode's generator, so SQL in tool code is as reproducible as sdk.Rand.
func seededRandom(conn *sqlite3.Conn, rng func() uint64) error {
	if err := createFunction(conn, "random", 0, 0, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
		ctx.ResultInt64(int64(rng()))
	}); err != nil {
		return err
	}
	return createFunction(conn, "randomblob", 1, 0, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		n := min(max(arg[0].Int64(), 1), 1<<20)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng())
		}
		ctx.ResultBlob(b)
	})
}

// checkLead refuses a statement that starts with a forbidden keyword
// (statements the authorizer cannot see, such as VACUUM).
func checkLead(sql string) error {
	var le *sqlrules.LeadError
	if errors.As(sqlrules.CheckLead(sql), &le) {
		return errNotAllowed(le.Keyword)
	}
	return nil
}

// prepareGuest prepares (or reuses) a guest statement under guest rules.
func (ep *Episode) prepareGuest(sql string) (*guestStmt, error) {
	if s, ok := ep.stmts[sql]; ok {
		return s, nil
	}
	if err := checkLead(sql); err != nil {
		return nil, err
	}
	ep.authGuest, ep.writes = true, nil
	stmt, tail, err := ep.conn.Prepare(sql)
	ep.authGuest = false
	if err != nil {
		return nil, err
	}
	if stmt == nil {
		return nil, errEmptySQL
	}
	if strings.TrimSpace(tail) != "" {
		stmt.Close()
		return nil, errMultiSQL
	}
	if len(ep.stmts) >= maxStmtCache {
		// One statement gives way, whichever the map yields first (its
		// iteration starts at random): dropping them all made every
		// environment with more distinct SQL than the bound (a synthesized
		// one's checks alone: 337 in airline) prepare nearly all of it again
		// on every episode, since the cache outlives its episodes on a
		// pooled connection (issue 35).
		for k, s := range ep.stmts {
			s.stmt.Close()
			delete(ep.stmts, k)
			break
		}
	}
	s := &guestStmt{stmt: stmt, writes: ep.writes}
	ep.stmts[sql] = s
	return s, nil
}

type sqlError string

func (e sqlError) Error() string { return string(e) }

const (
	errEmptySQL = sqlError("empty SQL statement")
	errMultiSQL = sqlError("one SQL statement per call")
)

// refusedSQL is SQL the sandbox rules refuse before SQLite sees it.
type refusedSQL string

func (e refusedSQL) Error() string { return string(e) }

func errNotAllowed(what string) error {
	return refusedSQL(what + " is not allowed in tool code (each call is already atomic; the sandbox has no files)")
}

// isRefused reports whether a prepare failed on the sandbox rules: a
// forbidden statement, or the authorizer's denial.
func isRefused(err error) bool {
	var r refusedSQL
	return errors.As(err, &r) || errors.Is(err, sqlite3.AUTH)
}

// execGuestSQL decodes a wire request, runs it and appends the wire response.
func (ep *Episode) execGuestSQL(c *toolCall, out []byte, req []byte) []byte {
	r := wire.NewReader(req)
	op := r.Byte()
	sql := r.Bytes()
	nparams := r.Uvarint()
	if r.Err() != nil || nparams > uint64(r.Len()) {
		return errorResponse(out, "malformed SQL request")
	}
	if ep.callWrote.over { // the call is refused (writecap.go): no more SQL
		return errorResponse(out, ep.callWrote.quota().Content)
	}
	gs, ok := ep.stmts[string(sql)] // no copy of the SQL text on a hit
	var err error
	if !ok {
		gs, err = ep.prepareGuest(string(sql))
	}
	if err != nil {
		if isRefused(err) {
			c.refused = true
		}
		return errorResponse(out, err.Error())
	}
	stmt := gs.stmt
	defer stmt.ClearBindings() // after Reset (defers run last first); with QPSG (sqlconn.go) clearing expires nothing
	defer stmt.Reset()
	if int(nparams) != stmt.BindCount() {
		return errorResponse(out, sqlErrorf("statement has %d parameters, %d given", stmt.BindCount(), nparams))
	}
	for i := 1; i <= int(nparams); i++ {
		var err error
		switch r.Byte() {
		case wire.TagNull:
			err = stmt.BindNull(i)
		case wire.TagInt:
			err = stmt.BindInt64(i, r.Varint())
		case wire.TagFloat:
			err = stmt.BindFloat(i, r.Float())
		case wire.TagText:
			err = stmt.BindRawText(i, r.Bytes())
		case wire.TagBlob:
			err = stmt.BindBlob(i, r.Bytes())
		default:
			return errorResponse(out, "malformed SQL parameter")
		}
		if err != nil {
			return errorResponse(out, err.Error())
		}
	}
	if r.Err() != nil {
		return errorResponse(out, "malformed SQL request")
	}
	if !stmt.ReadOnly() {
		if err := c.beforeWrite(); err != nil {
			return errorResponse(out, err.Error())
		}
	}
	for _, t := range gs.writes {
		ep.touched[t] = true
	}
	if len(gs.writes) > 0 {
		ep.stateHash = ""
	}
	out = append(out, wire.StatusOK)
	if op == wire.OpExec {
		for stmt.Step() {
		}
		if err := stmt.Err(); err != nil {
			return errorResponse(out[:0], err.Error())
		}
		if ep.callWrote.over {
			return errorResponse(out[:0], ep.callWrote.quota().Content)
		}
		// The statement's own rows, not its triggers' (sqlite3_changes
		// keeps its old value after a statement that writes nothing).
		rows := int64(0)
		if !stmt.ReadOnly() {
			rows = ep.conn.Changes()
			ep.changes = rows
		}
		out = wire.AppendVarint(out, rows)
		return wire.AppendVarint(out, ep.conn.LastInsertRowID())
	}
	if op == wire.OpQueryJSON || op == wire.OpQueryValues {
		return appendRowsJSON(out, gs, op == wire.OpQueryJSON)
	}
	ncol := stmt.ColumnCount()
	out = wire.AppendUvarint(out, uint64(ncol))
	for i := 0; i < ncol; i++ {
		out = wire.AppendString(out, stmt.ColumnName(i))
	}
	// Row count goes before the rows: reserve a fixed-width slot.
	countAt := len(out)
	out = append(out, make([]byte, wire.FixedUvarintLen)...)
	rows := 0
	for stmt.Step() {
		rows++
		for i := 0; i < ncol; i++ {
			out = appendCell(out, stmt, i)
		}
		if len(out) > maxResponse {
			return out // the caller replaces it with an error
		}
	}
	if err := stmt.Err(); err != nil {
		return errorResponse(out[:0], err.Error())
	}
	if ep.callWrote.over { // a write with RETURNING
		return errorResponse(out[:0], ep.callWrote.quota().Content)
	}
	wire.PutFixedUvarint(out[countAt:countAt+wire.FixedUvarintLen], uint64(rows))
	return out
}

func sqlErrorf(format string, args ...any) string {
	return fmt.Sprintf(format, args...)
}
