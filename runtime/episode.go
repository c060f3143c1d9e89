package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Result is what the agent receives from a tool call, and what happened.
type Result struct {
	Content string  `json:"content"`
	IsError bool    `json:"is_error"`
	Outcome Outcome `json:"outcome"`
}

// Episode is one isolated run of an environment: private state over the
// initial snapshot, a seed, and an optional task. It is not safe for
// concurrent use; serialize calls on one episode.
type Episode struct {
	env  *Env
	task *envpkg.Task
	seed int64
	init *initState
	// The episode's SQLite connection and what hangs on it (sqlconn.go):
	// nil until the episode first uses SQL, given back at Close.
	*sqlConn
	// parked is the episode's state while it holds no connection between
	// steps (park.go); depth counts the operations in progress.
	parked *parked
	depth  int

	touched map[string]bool // tables written since the last reset
	rng     *rand.Rand
	pcg     *rand.PCG
	calls   int64 // tool calls since reset; drives the clock
	traps   int64 // calls that ended in a trap or a watchdog stop, ever
	closed  bool
	lost    bool // SQLite rolled the transaction back (out of memory): see guard
	logged  int  // guest log bytes of the running call (logAllowed)
	sqlOOM  bool // SQLite ran out of memory in the running call's SQL
	diffMax int  // stop a diff past this many bytes (DiffAndHashUpTo); 0: no limit
	// fullScan makes the diff scan every written table whole instead of
	// reading the tracked rows (tests compare the two).
	fullScan     bool
	trackedScans int       // views read on the tracked path, ever (for the tests)
	directRows   []sideRow // scanDirect's scratch
	// stateHash is the state hash of the current state once StateHash or
	// DiffAndHash made it, so that Score after DiffAndHash (`wasmenv
	// replay`) does not read the written rows again; "" until then and
	// from anything that may change the state (a call, a write, a reset).
	stateHash string
}

type guestStmt struct {
	stmt   *sqlite3.Stmt
	writes []string
	shape  *rowShape // its columns for OpQueryJSON, made on first use (rowsjson.go)
}

// maxStmtCache bounds the guest statement cache per episode.
const maxStmtCache = 256

// NewEpisode starts an episode on a task ("" for none) with a seed.
func (e *Env) NewEpisode(taskID string, seed int64) (*Episode, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	var task *envpkg.Task
	if taskID != "" {
		t, ok := e.Bundle.Task(taskID)
		if !ok {
			return nil, fmt.Errorf("environment %s has no task %q", e.Name(), taskID)
		}
		task = t
	}
	return e.newEpisode(task, seed)
}

// newEpisode starts an episode on task (nil for none), which need not be
// one of the bundle's (see Candidate).
func (e *Env) newEpisode(task *envpkg.Task, seed int64) (*Episode, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	init, err := e.initFor(task)
	if err != nil {
		return nil, err
	}
	ep := &Episode{env: e, task: task, seed: seed, init: init, touched: map[string]bool{}}
	ep.pcg = rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)
	ep.rng = rand.New(ep.pcg)
	return ep, nil
}

// Task is the episode's task, or nil.
func (ep *Episode) Task() *envpkg.Task { return ep.task }

// Seed is the episode's seed.
func (ep *Episode) Seed() int64 { return ep.seed }

// Env is the environment the episode runs in.
func (ep *Episode) Env() *Env { return ep.env }

// Close ends the episode; its connection goes back to the pool.
func (ep *Episode) Close() error {
	if ep.closed {
		return nil
	}
	ep.closed = true
	ep.parked = nil
	return ep.disconnect()
}

// Reset returns the episode to its initial state with its seed: the open
// transaction is rolled back, nothing is copied.
func (ep *Episode) Reset() error {
	if ep.closed {
		return ErrClosed
	}
	if ep.sqlConn != nil {
		if err := catchOOM(ep.restart); err != nil {
			return err
		}
		ep.restartCounters()
	}
	ep.parked = nil
	ep.lost = false
	ep.pcg.Seed(uint64(ep.seed), 0x9e3779b97f4a7c15)
	ep.calls = 0
	clear(ep.touched)
	ep.stateHash = ""
	return nil
}

// ResetSeed resets the episode with a new seed.
func (ep *Episode) ResetSeed(seed int64) error {
	ep.seed = seed
	return ep.Reset()
}

// clockNanos is the episode clock: the environment's epoch plus one second
// per tool call since the reset, so time moves forward and is reproducible.
func (ep *Episode) clockNanos() int64 {
	return ep.env.epoch + ep.calls*int64(time.Second)
}

// maxKeptResponse is the largest SQL response buffer an episode keeps
// between calls.
const maxKeptResponse = 1 << 20

// maxArgsBytes bounds one call's arguments.
const maxArgsBytes = 1 << 20

// Call runs a tool with JSON arguments. Every problem the agent can cause
// (unknown tool, bad arguments, a tool error, a runaway tool) is a Result
// with IsError set and its Outcome saying what happened; the error return
// is for a closed episode or environment (ErrClosed), or an episode whose
// state SQLite lost (ErrStateLost).
func (ep *Episode) Call(ctx context.Context, name string, args []byte) (res Result, err error) {
	if ep.closed {
		return Result{}, ErrClosed
	}
	if ep.lost {
		return Result{}, ErrStateLost
	}
	ep.stateHash = ""  // the call may write
	defer ep.enter()() // after afterCall
	defer ep.afterCall(&res, &err)
	e := ep.env
	idx, ok := e.tools[name]
	if !ok {
		return failed(OutcomeUnknownTool, "unknown tool %q; available tools: %s", name, strings.Join(e.toolNames(), ", ")), nil
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if len(args) > maxArgsBytes {
		return failed(OutcomeInvalidArgs, "arguments for %s are %d bytes, over the limit of %d", name, len(args), maxArgsBytes), nil
	}
	if f := e.fast[idx]; f != nil && f.valid(args) {
		return ep.run(ctx, idx, args)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return failed(OutcomeInvalidArgs, "arguments for %s are not valid JSON: %v", name, err), nil
	}
	// Models often send null for an optional argument they mean to omit:
	// a null for an argument that is not required is treated as absent.
	if obj, ok := doc.(map[string]any); ok {
		dropped := false
		for k, v := range obj {
			if v == nil && !e.required[idx][k] {
				delete(obj, k)
				dropped = true
			}
		}
		if dropped {
			if args, err = json.Marshal(obj); err != nil {
				return failed(OutcomeInvalidArgs, "arguments for %s: %v", name, err), nil
			}
		}
	}
	late, err := e.validateWithin(ctx, idx, doc, len(args))
	if late {
		return failed(OutcomeTimeout, "checking the arguments of %s against its schema ran past the wall-clock guard of %s (the host is overloaded or wedged)", name, e.callWall), nil
	}
	if err != nil {
		msg := "invalid arguments for " + name + ": " + schemaMessage(err, e.limits.MaxOutputBytes)
		return failed(OutcomeInvalidArgs, "%s", capMessage(msg, e.limits.MaxOutputBytes-len("Error: "))), nil
	}
	return ep.run(ctx, idx, args)
}

// run executes a validated call. Its writes go inside a savepoint, begun
// by the call's first write (a read-only call needs none), so that a
// failed call changes nothing.
func (ep *Episode) run(ctx context.Context, idx int, args []byte) (Result, error) {
	e := ep.env
	// The instance first, then the connection: callers beyond the instance
	// pool wait for an instance without holding a connection, so that a
	// burst of steps holds no more connections than run at once plus those
	// episodes keep between steps (park.go). The outcomes are as in the
	// other order: a connection that fails is the error, then a cancelled
	// call times out (counted), then an instance that failed is the error.
	var inst *instance
	var err error
	if ctx.Err() == nil {
		inst, err = e.getInstance(ctx)
	}
	if err := ep.connect(); err != nil {
		if inst != nil {
			e.putInstance(inst)
		}
		return Result{}, err
	}
	ep.calls++
	if ctx.Err() != nil {
		if inst != nil {
			e.putInstance(inst)
		}
		ep.traps++
		return failed(OutcomeTimeout, "tool call was cancelled"), nil
	}
	if err != nil {
		return Result{}, err
	}
	inst.stderr.reset()
	c := &toolCall{ep: ep, inst: inst, ctx: ctx}
	c.begin()
	e.dog.arm(inst, c.ctx)
	status, out, err := inst.invoke(c.ctx, e, uint32(idx), args)
	stopped := e.dog.disarm(inst, c.ctx)
	c.end()

	var t *trap
	if stopped && !errors.As(err, &t) {
		// The watchdog stopped the call as it returned: its last SQL may have
		// been interrupted and ignored, so the call does not count.
		err = inst.explain(e, err)
	}
	if errors.As(err, &t) {
		inst.discard()
		c.undo()
		ep.traps++
		return failed(t.outcome, "%s", t.msg), nil
	}
	e.putInstance(inst)
	if err != nil { // output too large
		c.undo()
		return failed(OutcomeTrap, "%s", err.Error()), nil
	}
	if ep.callWrote.over { // whatever the tool made of its interrupted SQL
		c.undo()
		return ep.callWrote.quota(), nil
	}
	if status != wire.CallOK {
		c.undo()
		return failed(callOutcome(status, c.refused), "%s", out), nil
	}
	if c.savepoint { // a call that wrote nothing grew nothing
		if r, over := ep.overBudget(); over {
			c.undo()
			return r, nil
		}
	}
	if err := c.commit(); err != nil {
		c.undo()
		return Result{}, fmt.Errorf("release savepoint: %w", err)
	}
	return Result{Content: out, Outcome: OutcomeOK}, nil
}

// callOutcome maps a guest's error status to an outcome. A tool that
// fails after the sandbox refused its SQL failed because of the refusal.
func callOutcome(status byte, refused bool) Outcome {
	switch {
	case status == wire.CallInvalidArgs:
		return OutcomeInvalidArgs
	case status == wire.CallPanic:
		return OutcomeTrap
	case refused:
		return OutcomeRefusedSQL
	}
	return OutcomeToolError
}

func (e *Env) toolNames() []string {
	names := make([]string, 0, len(e.tools))
	for n := range e.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var printer = message.NewPrinter(language.English)

// schemaMessage turns a validation error into one line an agent can act on,
// of at most limit bytes (the environment's max_output_bytes).
func schemaMessage(err error, limit int) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return capMessage(err.Error(), limit)
	}
	var msgs []string
	size := 0
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if size > limit {
			return
		}
		if len(v.Causes) == 0 {
			loc := "/" + strings.Join(v.InstanceLocation, "/")
			m := fmt.Sprintf("at %s: %s", loc, v.ErrorKind.LocalizedString(printer))
			msgs = append(msgs, m)
			size += len(m) + 2
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return capMessage(strings.Join(msgs, "; "), limit)
}

// CallJSON is Call with arguments given as a Go value (marshalled to JSON).
func (ep *Episode) CallJSON(ctx context.Context, name string, args any) (Result, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return Result{}, err
	}
	return ep.Call(ctx, name, b)
}
