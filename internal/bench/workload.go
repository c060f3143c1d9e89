package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Op is one tool call of the workload.
type Op struct {
	Tool  string
	Args  []byte
	Write bool
	// native runs the same call as host SQL (baselines); nil outside
	// the benchmark environment.
	native func(c *nativeConn) error
}

// workload is the set of calls a benchmark draws from.
type workload struct {
	reads, writes, lists []Op
	native               bool // baselines can run steps
}

// mix draws a step of a typical agent episode: 70% point reads, 20%
// single-row writes, 10% lists.
func (w *workload) mix(r *rand.Rand) *Op {
	switch x := r.IntN(10); {
	case x < 7 || (len(w.writes) == 0 && len(w.lists) == 0):
		return &w.reads[r.IntN(len(w.reads))]
	case (x < 9 || len(w.lists) == 0) && len(w.writes) > 0:
		return &w.writes[r.IntN(len(w.writes))]
	case len(w.lists) > 0:
		return &w.lists[r.IntN(len(w.lists))]
	}
	return &w.reads[r.IntN(len(w.reads))]
}

var statuses = []string{"pending", "shipped", "delivered", "cancelled"}

// benchenvWorkload is the workload on bench/testdata/benchenv (8,000 orders of
// 1,000 users).
func benchenvWorkload() *workload {
	r := rand.New(rand.NewPCG(1, 2))
	w := &workload{native: true}
	for range 256 {
		id := 1 + r.IntN(8000)
		w.reads = append(w.reads, Op{Tool: "get_order", Args: fmt.Appendf(nil, `{"order_id":%d}`, id),
			native: func(c *nativeConn) error {
				return c.query(`SELECT id, user_id, product_id, quantity, status, created_at FROM orders WHERE id = ?`, id)
			}})
		st := statuses[r.IntN(len(statuses))]
		w.writes = append(w.writes, Op{Tool: "set_order_status", Write: true, Args: fmt.Appendf(nil, `{"order_id":%d,"status":"%s"}`, id, st),
			native: func(c *nativeConn) error {
				return c.exec(`UPDATE orders SET status = ? WHERE id = ?`, st, id)
			}})
		u := 1 + r.IntN(1000)
		w.lists = append(w.lists, Op{Tool: "list_orders", Args: fmt.Appendf(nil, `{"user_id":%d,"limit":10}`, u),
			native: func(c *nativeConn) error {
				return c.query(`SELECT id, product_id, quantity, status FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?`, u, 10)
			}})
	}
	return w
}

// isBenchenv tells whether b is bench/testdata/benchenv (its tools are known).
func isBenchenv(b *envpkg.Bundle) bool {
	if b.Manifest.Name != "benchenv" {
		return false
	}
	n := 0
	for _, t := range b.Manifest.Tools {
		switch t.Name {
		case "get_order", "set_order_status", "list_orders":
			n++
		}
	}
	return n == 3
}

// taskWorkload uses a bundle's ground-truth task calls, classified as
// writes when a call alone changes the exported state.
func taskWorkload(ctx context.Context, env *runtime.Env) (*workload, error) {
	w := &workload{}
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	seen := map[string]bool{}
	for _, t := range env.Bundle.Tasks {
		if t.Setup != "" {
			continue // calls may need the task's state
		}
		for _, c := range t.Calls {
			key := c.Name + string(c.Arguments)
			if seen[key] {
				continue
			}
			seen[key] = true
			if err := ep.Reset(); err != nil {
				return nil, err
			}
			r, err := ep.Call(ctx, c.Name, c.Arguments)
			if err != nil {
				return nil, err
			}
			if r.IsError {
				continue
			}
			d, err := ep.Diff()
			if err != nil {
				return nil, err
			}
			op := Op{Tool: c.Name, Args: c.Arguments, Write: len(d) > 0}
			if op.Write {
				w.writes = append(w.writes, op)
			} else {
				w.reads = append(w.reads, op)
			}
		}
	}
	if len(w.reads) == 0 && len(w.writes) == 0 {
		return nil, fmt.Errorf("bundle %s has no task calls without setup that succeed on the initial state: nothing to run", env.Name())
	}
	if len(w.reads) == 0 {
		w.reads = w.writes
	}
	return w, ep.Reset()
}

// nativeConn is a baseline's connection with a statement cache, like a
// Python tool module over sqlite3.
type nativeConn struct {
	conn  *sqlite3.Conn
	stmts map[string]*sqlite3.Stmt
}

func (c *nativeConn) prepare(sql string, args []any) (*sqlite3.Stmt, error) {
	s, ok := c.stmts[sql]
	if !ok {
		var err error
		if s, _, err = c.conn.Prepare(sql); err != nil {
			return nil, err
		}
		c.stmts[sql] = s
	}
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case int:
			err = s.BindInt(i+1, v)
		case string:
			err = s.BindText(i+1, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (c *nativeConn) query(sql string, args ...any) error {
	s, err := c.prepare(sql, args)
	if err != nil {
		return err
	}
	defer s.Reset()
	for s.Step() {
		for i := range s.ColumnCount() {
			_ = s.ColumnRawText(i)
		}
	}
	return s.Err()
}

func (c *nativeConn) exec(sql string, args ...any) error {
	s, err := c.prepare(sql, args)
	if err != nil {
		return err
	}
	defer s.Reset()
	return s.Exec()
}

func (c *nativeConn) close() {
	for _, s := range c.stmts {
		s.Close()
	}
	clear(c.stmts)
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
