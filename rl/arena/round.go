package arena

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// RoundResult is round-N/round.json: written last, so its presence means
// the round is complete.
type RoundResult struct {
	Round       int                `json:"round"`
	SuccessRate float64            `json:"arena_success_rate"`
	ByEnv       map[string]float64 `json:"success_by_env"`
	ByCategory  map[string]float64 `json:"success_by_category"`
	Weak        []string           `json:"weak_environments"`
	Targeted    map[string]int     `json:"targeted_tasks"`
	Control     map[string]int     `json:"control_tasks"`
	// Complexified is what distractor rows each weak environment's
	// database got before its candidates were drawn.
	Complexified map[string]*Complexified `json:"complexified,omitempty"`
	Gain         *float64                 `json:"gain_over_previous,omitempty"`
	Stopped      bool                     `json:"stopped"` // the gain fell below MinGain
}

// Run runs the rounds, skipping what an earlier run of the same
// configuration already wrote (every artifact is written whole or not at
// all, so a kill loses at most the step in flight).
func Run(ctx context.Context, cfg Config) ([]RoundResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	id, err := cfg.identity()
	if err != nil {
		return nil, err
	}
	idPath := filepath.Join(cfg.Out, "arena.json")
	if old, err := os.ReadFile(idPath); err == nil && !bytes.Equal(old, id) {
		return nil, fmt.Errorf("arena: %s was made with other settings or databases (%s): use another folder", cfg.Out, idPath)
	} else if err != nil {
		if err := envpkg.WriteFileAtomic(idPath, id); err != nil {
			return nil, err
		}
	}
	var results []RoundResult
	for n := 1; n <= cfg.Rounds; n++ {
		r, err := runRound(ctx, &cfg, n, results)
		if err != nil {
			return results, fmt.Errorf("arena: round %d: %w", n, err)
		}
		results = append(results, *r)
		if r.Stopped {
			break
		}
	}
	return results, nil
}

func runRound(ctx context.Context, cfg *Config, n int, prev []RoundResult) (*RoundResult, error) {
	dir := filepath.Join(cfg.Out, fmt.Sprintf("round-%d", n))
	donePath := filepath.Join(dir, "round.json")
	if b, err := os.ReadFile(donePath); err == nil {
		var r RoundResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", donePath, err)
		}
		cfg.logf("round %d: done before, resumed past it", n)
		return &r, nil
	}
	evalSeed, candSeed := cfg.Seed+1000*int64(n)+1, cfg.Seed+1000*int64(n)+2

	// 1. Fresh tasks for every arena environment.
	envs := map[string]*runtime.Env{}
	category := map[string]string{}
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	var list []*runtime.Env
	for _, s := range cfg.Arena {
		path, err := cfg.synthesize(ctx, s, filepath.Join(dir, "eval"), cfg.EvalTasks, evalSeed)
		if err != nil {
			return nil, err
		}
		if err := cfg.retain(ctx, path); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		b, err := envpkg.Read(path)
		if err != nil {
			return nil, err
		}
		// Fresh means fresh: drop what an earlier round evaluated or
		// handed to the trainer.
		seen, err := earlierTasks(cfg.Out, n, s.Name)
		if err != nil {
			return nil, err
		}
		if kept := unseen(b.Tasks, seen); len(kept) < len(b.Tasks) {
			cfg.logf("round %d: %s: %d of %d fresh tasks were seen in an earlier round, dropped", n, s.Name, len(b.Tasks)-len(kept), len(b.Tasks))
			b.Tasks = kept
		}
		if len(b.Tasks) == 0 {
			return nil, fmt.Errorf("%s: every fresh task was seen in an earlier round (raise --eval-tasks or change --seed)", s.Name)
		}
		env, err := runtime.LoadBundle(ctx, b, cfg.Synth.Runtime)
		if err != nil {
			return nil, err
		}
		envs[env.Name()] = env
		category[env.Name()] = s.Category
		list = append(list, env)
	}

	// 2. Evaluate.
	rollPath := filepath.Join(dir, "rollouts.jsonl")
	if _, err := os.Stat(rollPath); err != nil {
		cfg.logf("round %d: evaluating %d environments", n, len(list))
		out, err := rl.CreateJSONL(rollPath)
		if err != nil {
			return nil, err
		}
		if _, err := rl.Run(ctx, list, cfg.Policy, rl.Config{Group: cfg.Group, Seed: evalSeed, MaxTurns: cfg.MaxTurns}, out); err != nil {
			out.Abort()
			return nil, err
		}
		if err := out.Close(); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(rollPath)
	if err != nil {
		return nil, err
	}
	recs, err := ReadRecords(f)
	f.Close()
	if err != nil {
		return nil, err
	}

	// 3. Report and diagnosis.
	rep, err := BuildReport(ctx, envs, category, recs)
	if err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, "report.json"), rep); err != nil {
		return nil, err
	}
	var txt bytes.Buffer
	rep.WriteText(&txt)
	if err := envpkg.WriteFileAtomic(filepath.Join(dir, "report.txt"), txt.Bytes()); err != nil {
		return nil, err
	}
	diag, err := diagnose(ctx, cfg.Diagnoser, rep, recs, filepath.Join(dir, "diagnosis.json"))
	if err != nil {
		return nil, err
	}

	// 4. Targeted tasks (and the same number of untargeted ones, the
	// control) for every weak environment, from a fresh candidate pool.
	res := &RoundResult{Round: n, SuccessRate: rep.SuccessRate, ByEnv: map[string]float64{}, ByCategory: map[string]float64{},
		Targeted: map[string]int{}, Control: map[string]int{}, Complexified: map[string]*Complexified{}}
	for _, er := range rep.Envs {
		res.ByEnv[er.Env] = er.SuccessRate
	}
	for _, c := range rep.Categories {
		res.ByCategory[c.Category] = c.SuccessRate
	}
	var targeted []string
	for _, w := range diag.Weak {
		src := cfg.source(w.Env)
		if src == nil {
			return nil, fmt.Errorf("weak environment %q is not an arena source", w.Env)
		}
		res.Weak = append(res.Weak, w.Env)
		poolSrc := *src
		if !cfg.NoComplexify {
			cx, db, err := complexified(ctx, cfg, envs[w.Env].Bundle, filepath.Join(dir, "complex"), w.Env, candSeed)
			if err != nil {
				return nil, err
			}
			res.Complexified[w.Env], poolSrc.DB = cx, db
		}
		poolPath, err := cfg.synthesize(ctx, poolSrc, filepath.Join(dir, "pool"), cfg.Pool, candSeed)
		if err != nil {
			return nil, err
		}
		pool, err := envpkg.Read(poolPath)
		if err != nil {
			return nil, err
		}
		seen, err := earlierTasks(cfg.Out, n, w.Env)
		if err != nil {
			return nil, err
		}
		fresh := unseen(pool.Tasks, append(seen, envs[w.Env].Bundle.Tasks...))
		pick := Target(fresh, w.Guidelines, cfg.Targeted)
		ctl := Untargeted(fresh, len(pick), candSeed)
		tp, err := writeWithTasks(pool, pick, filepath.Join(dir, "targeted", w.Env+".wasm"))
		if err != nil {
			return nil, err
		}
		if _, err := writeWithTasks(pool, ctl, filepath.Join(dir, "control", w.Env+".wasm")); err != nil {
			return nil, err
		}
		res.Targeted[w.Env], res.Control[w.Env] = len(pick), len(ctl)
		targeted = append(targeted, tp)
	}
	if len(prev) > 0 {
		g := res.SuccessRate - prev[len(prev)-1].SuccessRate
		res.Gain = &g
		res.Stopped = g < cfg.MinGain
	}

	// 5. Hand-off.
	// trained.json marks a finished hand-off, so that a kill between the
	// trainer's end and round.json does not train twice.
	trainedPath := filepath.Join(dir, "trained.json")
	if _, err := os.Stat(trainedPath); err != nil && cfg.Train != nil && len(targeted) > 0 && !res.Stopped {
		cfg.logf("round %d: training on %d targeted bundles", n, len(targeted))
		if err := cfg.Train(ctx, n, targeted); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if err := writeJSON(trainedPath, targeted); err != nil {
			return nil, err
		}
	}
	if err := writeJSON(donePath, res); err != nil {
		return nil, err
	}
	cfg.logf("round %d: arena success %.3f, weak %v", n, res.SuccessRate, res.Weak)
	return res, nil
}

// diagnose reads path back when an earlier run wrote it (an LLM call is
// not repeated on resume); otherwise it diagnoses, handing an LLM the
// round's rollouts for their conversations, and writes path.
func diagnose(ctx context.Context, d Diagnoser, rep *Report, recs []Record, path string) (*Diagnosis, error) {
	if b, err := os.ReadFile(path); err == nil {
		var diag Diagnosis
		if err := json.Unmarshal(b, &diag); err == nil && diag.Validate(rep) == nil {
			return &diag, nil
		}
	}
	diag, err := withRecords(d, recs).Diagnose(ctx, rep)
	if err != nil {
		return nil, err
	}
	return diag, writeJSON(path, diag)
}

// withRecords gives an LLM diagnoser the rollouts its prompt quotes (a
// copy: the configured one is shared by every round).
func withRecords(d Diagnoser, recs []Record) Diagnoser {
	if l, ok := d.(*LLM); ok {
		c := *l
		c.Records = recs
		return &c
	}
	return d
}

// earlierTasks lists the tasks of environment name that rounds before n
// evaluated or handed to the trainer (targeted and control).
func earlierTasks(out string, n int, name string) ([]envpkg.Task, error) {
	var seen []envpkg.Task
	for k := 1; k < n; k++ {
		for _, sub := range []string{"eval", "targeted", "control"} {
			path := filepath.Join(out, fmt.Sprintf("round-%d", k), sub, name+".wasm")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			b, err := envpkg.Read(path)
			if err != nil {
				return nil, err
			}
			seen = append(seen, b.Tasks...)
		}
	}
	return seen, nil
}

// complexified writes (or finds) dir/NAME.sqlite: the evaluation bundle's
// database with distractors that keep every evaluation task's ground
// truth, and dir/NAME.json, what was added.
func complexified(ctx context.Context, cfg *Config, b *envpkg.Bundle, dir, name string, seed int64) (*Complexified, string, error) {
	db, stats := filepath.Join(dir, name+".sqlite"), filepath.Join(dir, name+".json")
	var cx Complexified
	if data, err := os.ReadFile(stats); err == nil {
		if _, err := os.Stat(db); err == nil && json.Unmarshal(data, &cx) == nil {
			return &cx, db, nil
		}
	}
	nb, got, err := Complexify(ctx, b, ComplexifyOptions{Seed: seed, Runtime: cfg.Synth.Runtime})
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	if err := envpkg.WriteFileAtomic(db, nb.DB); err != nil {
		return nil, "", err
	}
	return got, db, writeJSON(stats, got)
}

// synthesize makes (or finds from an earlier run) dir/NAME.wasm: the
// source database with n tasks drawn with seed.
func (c *Config) synthesize(ctx context.Context, s Source, dir string, n int, seed int64) (string, error) {
	path := filepath.Join(dir, s.Name+".wasm")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(dir, "."+s.Name+"-src-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	opts := c.Synth
	opts.Out, opts.Bundle, opts.Name, opts.Tasks, opts.Seed = filepath.Join(work, "env"), path, s.Name, n, seed
	if _, err := synth.FromDB(ctx, s.DB, opts); err != nil {
		return "", fmt.Errorf("synth %s: %w", s.Name, err)
	}
	return path, nil
}

// retain runs the retention gate (Config.Retain) on a fresh evaluation
// draw once: a bundle with its report beside it was gated by an earlier
// run.
func (c *Config) retain(ctx context.Context, path string) error {
	if c.Retain == nil {
		return nil
	}
	if _, err := os.Stat(path + retain.ReportSuffix); err == nil {
		return nil
	}
	rep, kept, err := retain.GateBundle(ctx, path, *c.Retain, c.Synth.Runtime)
	if err != nil {
		return err
	}
	c.logf("retention gate: %s: %d of %d tasks kept, attempts solved %.0f%%", filepath.Base(path), len(kept), len(rep.Tasks), 100*rep.PassRate())
	return nil
}

// unseen drops the candidates that ask what an evaluation task asked (same
// instruction or same ground-truth calls): training must not see the
// arena's own tasks.
func unseen(cands, eval []envpkg.Task) []envpkg.Task {
	seen := map[string]bool{}
	key := func(t envpkg.Task) string {
		if len(t.Calls) == 0 {
			return "\x00" + t.Instruction // no calls: the instruction alone says what it asks
		}
		b, _ := json.Marshal(t.Calls)
		return string(b)
	}
	for _, t := range eval {
		seen[t.Instruction], seen[key(t)] = true, true
	}
	var out []envpkg.Task
	for _, t := range cands {
		if !seen[t.Instruction] && !seen[key(t)] {
			out = append(out, t)
		}
	}
	return out
}

func writeWithTasks(b *envpkg.Bundle, tasks []envpkg.Task, path string) (string, error) {
	nb := *b
	nb.Tasks = tasks
	data, err := envpkg.Encode(&nb)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, envpkg.WriteFileAtomic(path, data)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return envpkg.WriteFileAtomic(path, append(b, '\n'))
}
