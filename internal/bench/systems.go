package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"
	_ "github.com/ncruces/go-sqlite3/vfs/memdb" // in-memory episodes

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// system is a way to run episodes: wasmenv or a baseline.
type system interface {
	name() string
	newEpisode() (episode, error)
	close()
}

// episode is one episode of a system. Not safe for concurrent use.
type episode interface {
	step(op *Op) error
	reset() error
	close()
}

// wasmenvSystem runs episodes on the runtime.
type wasmenvSystem struct {
	label string
	env   *runtime.Env
}

func newWasmenv(ctx context.Context, label string, b *envpkg.Bundle, opts runtime.Options) (*wasmenvSystem, error) {
	env, err := runtime.LoadBundle(ctx, b, opts)
	if err != nil {
		return nil, err
	}
	return &wasmenvSystem{label: label, env: env}, nil
}

func (s *wasmenvSystem) name() string { return s.label }
func (s *wasmenvSystem) close()       { s.env.Close() }

// closeIdle frees the connections the runtime keeps for later episodes, so
// that a memory measurement starts from none (see measureScale).
func (s *wasmenvSystem) closeIdle() { s.env.CloseIdleConns() }

func (s *wasmenvSystem) newEpisode() (episode, error) {
	ep, err := s.env.NewEpisode("", 1)
	if err != nil {
		return nil, err
	}
	return wasmenvEpisode{ep}, nil
}

type wasmenvEpisode struct{ ep *runtime.Episode }

func (e wasmenvEpisode) step(op *Op) error {
	r, err := e.ep.Call(context.Background(), op.Tool, op.Args)
	// A tool's own error is a step like any other: a task workload replays
	// ground-truth calls outside their task, so a write may meet a state
	// it already made ("item 15 is already variant V2028"). A failure of
	// the environment, or an agent-side refusal, means the workload is
	// wrong and its timings would be.
	if err == nil && (r.Outcome.EnvFault() || r.Outcome.AgentFault()) {
		err = fmt.Errorf("%s(%s): %s (%s)", op.Tool, op.Args, r.Content, r.Outcome)
	}
	return err
}

func (e wasmenvEpisode) reset() error { return e.ep.Reset() }
func (e wasmenvEpisode) close()       { e.ep.Close() }

// filecopySystem keeps each episode in a SQLite file; a reset copies the
// pristine file over it and reopens the connection.
type filecopySystem struct {
	dir  string
	base string
	seq  atomic.Int64
}

func newFilecopy(db []byte) (*filecopySystem, error) {
	dir, err := os.MkdirTemp("", "wasmenv-bench-filecopy-")
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "base.db")
	if err := os.WriteFile(base, db, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &filecopySystem{dir: dir, base: base}, nil
}

func (s *filecopySystem) name() string { return "filecopy" }
func (s *filecopySystem) close()       { os.RemoveAll(s.dir) }

func (s *filecopySystem) newEpisode() (episode, error) {
	e := &filecopyEpisode{sys: s, path: filepath.Join(s.dir, fmt.Sprintf("ep-%d.db", s.seq.Add(1)))}
	if err := e.reset(); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

type filecopyEpisode struct {
	sys  *filecopySystem
	path string
	nativeConn
}

func (e *filecopyEpisode) step(op *Op) error { return op.native(&e.nativeConn) }

func (e *filecopyEpisode) reset() error {
	e.nativeConn.close()
	if err := copyFile(e.path, e.sys.base); err != nil {
		return err
	}
	conn, err := sqlite3.Open(e.path)
	if err != nil {
		return err
	}
	// Throwaway state: no fsync per write (a fair baseline, not a slow one).
	if err := conn.Exec(`PRAGMA synchronous = OFF`); err != nil {
		conn.Close()
		return err
	}
	e.conn, e.stmts = conn, map[string]*sqlite3.Stmt{}
	return nil
}

func (e *filecopyEpisode) close() {
	e.nativeConn.close()
	os.Remove(e.path)
	os.Remove(e.path + "-journal")
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// serdesSystem keeps each episode in memory; a reset deserializes the
// pristine image into it.
type serdesSystem struct {
	img []byte
	seq atomic.Int64
}

func (s *serdesSystem) name() string { return "serdes" }
func (s *serdesSystem) close()       {}

func (s *serdesSystem) newEpisode() (episode, error) {
	conn, err := sqlite3.Open(fmt.Sprintf("file:/bench-serdes-%d?vfs=memdb", s.seq.Add(1)))
	if err != nil {
		return nil, err
	}
	e := &serdesEpisode{sys: s, nativeConn: nativeConn{conn: conn, stmts: map[string]*sqlite3.Stmt{}}}
	if err := e.reset(); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

type serdesEpisode struct {
	sys *serdesSystem
	nativeConn
}

func (e *serdesEpisode) step(op *Op) error { return op.native(&e.nativeConn) }
func (e *serdesEpisode) reset() error      { return serdes.Deserialize(e.conn, "main", e.sys.img) }
func (e *serdesEpisode) close()            { e.nativeConn.close() }
