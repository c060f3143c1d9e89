package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// SQLite's date and time functions read the host's wall clock for the time
// value 'now' and when called without a time value (date(), julianday()),
// and the host's time zone for the 'localtime' and 'utc' modifiers; the
// library wires both to the process (time.Now, time.Local) with no hook.
// Bundle SQL must see the episode clock instead, as sdk.Now does, or a
// tool's output and a check's reward would depend on when and where an
// episode ran.
//
// So every connection that runs bundle SQL gets these functions replaced
// (an application-defined function wins over a built-in of the same name
// in SQLite's lookup): the replacement rewrites its arguments — a time
// value 'now' (or 'subsec', which SQLite reads as now) becomes the
// episode time, a missing time value is added, and
// 'localtime'/'utc' become a no-op modifier, since the sandbox's zone is
// UTC (the guest's time.Local is UTC too) — and evaluates the built-in on
// a side connection that has no replacements. Everything else (types,
// NULLs, bad input, errors) is the built-in's own answer.

// clockFunc is one SQLite date function and where its time values are.
type clockFunc struct {
	name  string
	nArg  int // -1: any number
	first int // index of the first time value (strftime's first argument is the format)
	times int // how many time values (timediff compares two), then modifiers
}

var clockFuncs = []clockFunc{
	{"date", -1, 0, 1},
	{"time", -1, 0, 1},
	{"datetime", -1, 0, 1},
	{"julianday", -1, 0, 1},
	{"unixepoch", -1, 0, 1},
	{"strftime", -1, 1, 1},
	{"timediff", 2, 0, 2},
}

// utcNoop replaces 'localtime' and 'utc': in UTC both leave the time as it
// is, and a modifier stays in its place ('unixepoch' must come first).
const utcNoop = "+0 seconds"

// sqlClock replaces the date functions on conn with ones whose 'now' is
// clock() (unix nanoseconds).
func sqlClock(conn *sqlite3.Conn, clock func() int64) error {
	for _, f := range clockFuncs {
		// DETERMINISTIC as the built-ins are (SQLite treats them as
		// constant within a statement), so index expressions and generated
		// columns over date(col) keep working. The one difference it makes:
		// SQLite refuses 'now' in an index expression, a CHECK or a
		// generated column at run time ("non-deterministic use of date()"),
		// and the public API does not say where a function is called from,
		// so there the replacement answers the episode time instead. Only
		// schema.sql can declare those (bundle SQL has no DDL), and the
		// answer is still a function of the episode.
		flags := sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
		if err := createFunction(conn, f.name, f.nArg, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			f.call(ctx, arg, clock)
		}); err != nil {
			return err
		}
	}
	return nil
}

// clockArg is one argument as the built-in will see it.
type clockArg struct {
	typ  sqlite3.Datatype
	i    int64
	f    float64
	b    []byte // text or blob
	text bool   // b is text
}

func (f *clockFunc) call(ctx sqlite3.Context, arg []sqlite3.Value, clock func() int64) {
	args := make([]clockArg, 0, len(arg)+1)
	subsec := false
	for i, v := range arg {
		a := clockArg{typ: v.Type()}
		switch a.typ {
		case sqlite3.INTEGER:
			a.i = v.Int64()
		case sqlite3.FLOAT:
			a.f = v.Float()
		case sqlite3.TEXT:
			a.b, a.text = v.RawText(), true
		case sqlite3.BLOB:
			a.b = v.RawBlob()
		}
		isTime := i >= f.first && i < f.first+f.times
		switch {
		case a.b != nil && isTime && cstrEqualFold(a.b, "now"):
			a = nowArg(clock())
		case a.b != nil && isTime && (cstrEqualFold(a.b, "subsec") || cstrEqualFold(a.b, "subsecond")):
			// A time value 'subsec' is 'now' with the subsec modifier,
			// which acts wherever it is: put at the end, it moves no
			// modifier from the place SQLite checks ('auto' first).
			a = nowArg(clock())
			subsec = f.times == 1
		case a.b != nil && i >= f.first+f.times && (cstrEqualFold(a.b, "localtime") || cstrEqualFold(a.b, "utc")):
			a = clockArg{typ: sqlite3.TEXT, b: []byte(utcNoop), text: true}
		}
		args = append(args, a)
	}
	if f.nArg < 0 && len(args) == f.first {
		args = append(args, nowArg(clock())) // date(), strftime('%s'): now
	}
	if subsec {
		args = append(args, clockArg{typ: sqlite3.TEXT, b: []byte("subsec"), text: true})
	}
	evalBuiltin(ctx, f.name, args)
}

// nowArg is the episode time as SQLite writes 'now': UTC, milliseconds.
func nowArg(ns int64) clockArg {
	t := time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000")
	return clockArg{typ: sqlite3.TEXT, b: []byte(t), text: true}
}

// cstrEqualFold compares as SQLite does (sqlite3_stricmp on the value's
// text): up to the first NUL, ASCII letters folded.
func cstrEqualFold(b []byte, s string) bool {
	for i := range b {
		if b[i] == 0 {
			b = b[:i]
			break
		}
	}
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// sideConn is a connection with SQLite's own date functions, with the
// statements `SELECT name(?, ?, …)` it has prepared.
type sideConn struct {
	conn  *sqlite3.Conn
	stmts map[sideKey]*sqlite3.Stmt
}

type sideKey struct {
	name string
	n    int
}

// sideConns are the idle side connections, shared by every connection in
// the process (one is busy only while one date function is evaluated).
var sideConns struct {
	sync.Mutex
	idle []*sideConn
}

// maxIdleSideConns bounds the side connections kept; more are closed.
// maxSideStmts bounds the statements one keeps prepared.
const (
	maxIdleSideConns = 4
	maxSideStmts     = 64
)

func takeSideConn() (*sideConn, error) {
	sideConns.Lock()
	if n := len(sideConns.idle); n > 0 {
		s := sideConns.idle[n-1]
		sideConns.idle = sideConns.idle[:n-1]
		sideConns.Unlock()
		return s, nil
	}
	sideConns.Unlock()
	conn, err := sqlite3.OpenContext(sqlite3.WithMaxMemory(context.Background(), maxSideMemory), ":memory:")
	if err != nil {
		return nil, err
	}
	return &sideConn{conn: conn, stmts: map[sideKey]*sqlite3.Stmt{}}, nil
}

func putSideConn(s *sideConn) {
	sideConns.Lock()
	if len(sideConns.idle) < maxIdleSideConns {
		sideConns.idle = append(sideConns.idle, s)
		s = nil
	}
	sideConns.Unlock()
	if s != nil {
		s.close()
	}
}

// discard closes a side connection a panic went through; if closing it
// panics too, it is left to the garbage collector.
func (s *sideConn) discard() {
	defer func() { _ = recover() }()
	s.close()
}

func (s *sideConn) close() {
	for _, st := range s.stmts {
		st.Close()
	}
	s.conn.Close()
}

// stmt returns the prepared `SELECT name(?, …)` with n parameters.
func (s *sideConn) stmt(name string, n int) (*sqlite3.Stmt, error) {
	k := sideKey{name, n}
	if st, ok := s.stmts[k]; ok {
		return st, nil
	}
	if len(s.stmts) >= maxSideStmts { // a bundle calling every arity up to SQLite's limit
		for k, st := range s.stmts {
			st.Close()
			delete(s.stmts, k)
		}
	}
	sql := make([]byte, 0, 16+len(name)+3*n)
	sql = append(sql, "SELECT "...)
	sql = append(sql, name...)
	sql = append(sql, '(')
	for i := range n {
		if i > 0 {
			sql = append(sql, ',')
		}
		sql = append(sql, '?')
		sql = strconv.AppendInt(sql, int64(i+1), 10)
	}
	sql = append(sql, ')')
	st, _, err := s.conn.Prepare(string(sql))
	if err != nil {
		return nil, err
	}
	s.stmts[k] = st
	return st, nil
}

// evalBuiltin sets ctx's result to SQLite's own name(args...).
func evalBuiltin(ctx sqlite3.Context, name string, args []clockArg) {
	res, err := sideEval(name, args)
	if err != nil {
		ctx.ResultError(err)
		return
	}
	switch res.typ {
	case sqlite3.NULL:
		ctx.ResultNull()
	case sqlite3.INTEGER:
		ctx.ResultInt64(res.i)
	case sqlite3.FLOAT:
		ctx.ResultFloat(res.f)
	case sqlite3.TEXT:
		ctx.ResultRawText(res.b) // may run the episode's SQLite out of memory: createFunction's guard
	default:
		ctx.ResultBlob(res.b)
	}
}

// maxSideMemory bounds a side connection's SQLite heap, and maxPooledArgs
// the argument bytes after which a side connection is closed rather than
// kept: a date function's working memory is not the episode's to keep.
const (
	maxSideMemory = 64 << 20
	maxPooledArgs = 64 << 10
)

// errDateTooLarge is a date function whose arguments or result do not fit
// the side connection: the statement fails, the episode goes on.
var errDateTooLarge = errors.New("date function: argument or result too large")

// sideEval runs name(args...) on a side connection and copies the result
// out. A side connection that panicked (its heap ran out while binding or
// reading) is closed, never reused: the panic skipped SQLite's cleanup.
func sideEval(name string, args []clockArg) (res clockArg, err error) {
	s, err := takeSideConn()
	if err != nil {
		return res, err
	}
	size := 0
	for _, a := range args {
		size += len(a.b)
	}
	defer func() {
		if v := recover(); v != nil {
			s.discard()
			res, err = clockArg{}, errDateTooLarge
			if !isOOM(v) {
				err = fmt.Errorf("date function %s: %v", name, v)
			}
			return
		}
		if size > maxPooledArgs || len(res.b) > maxPooledArgs {
			s.close()
		} else {
			putSideConn(s)
		}
	}()
	st, err := s.stmt(name, len(args))
	if err != nil {
		return res, err
	}
	defer st.ClearBindings() // after Reset (defers run last first)
	defer st.Reset()
	for i, a := range args {
		p := i + 1
		switch {
		case a.typ == sqlite3.INTEGER:
			err = st.BindInt64(p, a.i)
		case a.typ == sqlite3.FLOAT:
			err = st.BindFloat(p, a.f)
		case a.typ == sqlite3.NULL:
			err = st.BindNull(p)
		case a.text:
			err = st.BindRawText(p, a.b)
		default:
			err = st.BindBlob(p, a.b)
		}
		if err != nil {
			return res, sideError(err)
		}
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return res, sideError(err)
		}
		return clockArg{typ: sqlite3.NULL}, nil
	}
	res.typ = st.ColumnType(0)
	switch res.typ {
	case sqlite3.INTEGER:
		res.i = st.ColumnInt64(0)
	case sqlite3.FLOAT:
		res.f = st.ColumnFloat(0)
	case sqlite3.TEXT:
		res.b, res.text = bytes.Clone(st.ColumnRawText(0)), true
	case sqlite3.BLOB:
		res.b = bytes.Clone(st.ColumnRawBlob(0))
	}
	return res, nil
}

// sideError keeps the side connection's running out of memory (or over
// its length limit) from reading as the episode's: SQLite would roll the
// episode back on NOMEM.
func sideError(err error) error {
	if errors.Is(err, sqlite3.NOMEM) || errors.Is(err, sqlite3.TOOBIG) {
		return errDateTooLarge
	}
	return err
}
