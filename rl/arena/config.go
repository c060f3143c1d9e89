package arena

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// Source is one arena environment: a database that `synth from-db` turns
// into an environment, with fresh tasks each round.
type Source struct {
	Name     string `json:"name"`
	DB       string `json:"db"`
	Category string `json:"category,omitempty"`
}

// Config shapes an arena run. Zero values take the defaults noted.
type Config struct {
	Arena     []Source
	Out       string // the run's folder: Out/round-N/…; reruns resume
	Rounds    int    // default 2
	Seed      int64  // base seed: round n's evaluation tasks use Seed+1000n+1, its candidates Seed+1000n+2
	EvalTasks int    // fresh tasks per environment per round; default 20
	Group     int    // rollouts per evaluation task; default 4
	Targeted  int    // targeted tasks per weak environment; default 50
	Pool      int    // candidates the targeted tasks are picked from; default 4×Targeted
	MaxTurns  int    // default 20
	MinGain   float64
	// NoComplexify draws targeted candidates from the environment's own
	// database instead of one with distractor rows (Complexify).
	NoComplexify bool

	Policy rl.Policy // evaluated each round (its weights move between rounds through Train)
	// PolicyID names the policy for the resume check (kind, model,
	// endpoint, temperature); "": its Go type.
	PolicyID  string
	Diagnoser Diagnoser // default Procedural{}
	// Train hands a round's targeted bundles to a trainer and returns
	// when the policy has been updated; nil leaves the bundles for the
	// user (the next round then evaluates the same policy).
	Train func(ctx context.Context, round int, targeted []string) error

	Synth synth.Options // compiler and runtime options for from-db; Out, Bundle, Tasks, Seed are set per use
	// Retain, when set, runs the retention gate (synth/retain) on each
	// round's fresh evaluation tasks: tasks an agent cannot do for the
	// environment's fault are dropped before the policy is evaluated.
	Retain *retain.Config
	// RetainID names the gate's agent and settings for the resume check,
	// as PolicyID does the policy's; "" with Retain set: its k and the
	// agent's Go type.
	RetainID string
	Log      io.Writer
}

func (c *Config) defaults() error {
	if len(c.Arena) == 0 {
		return errors.New("arena: no arena environment")
	}
	if c.Out == "" {
		return errors.New("arena: an output folder is required")
	}
	if c.Policy == nil {
		return errors.New("arena: no policy")
	}
	set := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	set(&c.Rounds, 2)
	set(&c.EvalTasks, 20)
	set(&c.Group, 4)
	set(&c.Targeted, 50)
	set(&c.Pool, 4*c.Targeted)
	set(&c.MaxTurns, 20)
	for _, v := range []struct {
		name string
		n    int
	}{{"rounds", c.Rounds}, {"eval tasks", c.EvalTasks}, {"group", c.Group}, {"targeted", c.Targeted}, {"pool", c.Pool}, {"max turns", c.MaxTurns}} {
		if v.n < 1 {
			return fmt.Errorf("arena: %s %d: want at least 1", v.name, v.n)
		}
	}
	if c.Diagnoser == nil {
		c.Diagnoser = Procedural{}
	}
	seen := map[string]bool{}
	for _, s := range c.Arena {
		if !envpkg.ValidEnvName(s.Name) || seen[s.Name] {
			return fmt.Errorf("arena: environment name %q is invalid or repeated", s.Name)
		}
		seen[s.Name] = true
		if _, err := os.Stat(s.DB); err != nil {
			return fmt.Errorf("arena: %s: %w", s.Name, err)
		}
	}
	return nil
}

// identity is what a resumed run must share with the run that made Out:
// every setting that shapes an artifact, the policy's and the diagnoser's
// identity, and a hash of each source database.
func (c *Config) identity() ([]byte, error) {
	type id struct {
		Arena                                      []Source
		Seed                                       int64
		EvalTasks, Group, Targeted, Pool, MaxTurns int
		MinGain                                    float64
		NoComplexify                               bool
		Policy, Diagnoser                          string
		Synth                                      string
		Retain                                     string `json:",omitempty"` // absent without a gate: earlier runs resume
	}
	var srcs []Source
	for _, s := range c.Arena {
		b, err := os.ReadFile(s.DB)
		if err != nil {
			return nil, err
		}
		h := sha256.Sum256(b)
		srcs = append(srcs, Source{Name: s.Name, DB: hex.EncodeToString(h[:8]), Category: s.Category})
	}
	policy := c.PolicyID
	if policy == "" {
		policy = fmt.Sprintf("%T", c.Policy)
	}
	diag := fmt.Sprintf("%T", c.Diagnoser)
	if l, ok := c.Diagnoser.(*LLM); ok {
		diag += " " + l.Model
	}
	share := "default"
	if c.Synth.WriteShare != nil {
		share = fmt.Sprint(*c.Synth.WriteShare)
	}
	synthID := fmt.Sprintf("max-chain=%d write-share=%s read-only=%v state-reward=%v",
		c.Synth.MaxChain, share, c.Synth.ReadOnly, c.Synth.StateReward)
	gate := ""
	if c.Retain != nil {
		gate = c.RetainID
		if gate == "" {
			gate = fmt.Sprintf("k=%d max-turns=%d agent=%T", c.Retain.K, c.Retain.MaxTurns, c.Retain.Agent)
		}
	}
	return json.MarshalIndent(id{srcs, c.Seed, c.EvalTasks, c.Group, c.Targeted, c.Pool, c.MaxTurns,
		c.MinGain, c.NoComplexify, policy, diag, synthID, gate}, "", " ")
}

func (c *Config) source(name string) *Source {
	for i := range c.Arena {
		if c.Arena[i].Name == name {
			return &c.Arena[i]
		}
	}
	return nil
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}
