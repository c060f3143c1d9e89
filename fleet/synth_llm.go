package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// An LLM synthesis run (`wasmenv synth llm --nats`) plans its scenarios in
// the driver (the scenarios stage: one model conversation for the whole
// batch, deduplicated) and makes each scenario one job: the worker takes it
// through every stage with llm.RunScenario, the code of a local run,
// against the endpoint the job names, and sends the output directory it
// wrote as a tar (stored by content in BucketEnvs, as a from-db
// environment). The driver writes it into OUTDIR exactly where a local run
// writes it (synth_llm_output.go).

// SynthLLMSpec is one scenario of an LLM synthesis with the run's
// settings: the endpoint and model, never an API key nor the variable that
// holds one (a worker sends its own key, to the endpoints its own
// configuration allows: Endpoints), nor a path.
type SynthLLMSpec struct {
	Scenario llm.Scenario `json:"scenario"`
	BaseURL  string       `json:"base_url"`
	Model    string       `json:"model"`
	// Client settings (llm.Client): 0 takes its default.
	Temperature float64    `json:"temperature,omitempty"`
	MaxTokens   int        `json:"max_tokens,omitempty"`
	Retries     int        `json:"retries,omitempty"` // llm.NoRetries: none
	TimeoutMS   int64      `json:"timeout_ms,omitempty"`
	Concurrency int        `json:"concurrency,omitempty"`
	Prices      llm.Prices `json:"prices"`
	// Pipeline settings (llm.Config).
	Tasks        int     `json:"tasks,omitempty"`
	MaxAttempts  int     `json:"max_attempts,omitempty"`
	AuthAssumed  bool    `json:"auth_assumed,omitempty"`
	Clock        string  `json:"clock,omitempty"` // RFC 3339
	ProbeRounds  int     `json:"probe_rounds,omitempty"`
	PassRate     float64 `json:"pass_rate,omitempty"`
	MaxCodeBytes int     `json:"max_code_bytes,omitempty"`
	// The retention gate (llm.Config.RetainK, RetainMaxTurns): 0 is off.
	RetainK        int `json:"retain_k,omitempty"`
	RetainMaxTurns int `json:"retain_max_turns,omitempty"`
	// RetainRepairs and RetainUser: llm.Config's (0, false: none).
	RetainRepairs int  `json:"retain_repairs,omitempty"`
	RetainUser    bool `json:"retain_user,omitempty"`
	// TaskSteps: llm.Config's (0: off).
	TaskSteps int `json:"task_steps,omitempty"`
	// Prompts are the files of an edited prompt directory, by file name.
	Prompts map[string]string `json:"prompts,omitempty"`
}

// Bounds of what an LLM synthesis job may ask for.
const (
	MaxSynthLLMTasks    = 1000
	MaxSynthLLMAttempts = 100
	MaxSynthLLMRounds   = 100
	maxPromptBytes      = 512 << 10 // all prompt files together
)

func (s *SynthLLMSpec) check() error {
	bad := func(format string, args ...any) error { return errorf(CodeBadInput, nil, format, args...) }
	if !llm.ValidScenarioName(s.Scenario.Name) {
		return bad("scenario name %q: want 1 to 64 of a-z 0-9 -", truncate(s.Scenario.Name, 80))
	}
	if s.BaseURL == "" || s.Model == "" {
		return bad("an LLM synthesis job needs an endpoint and a model")
	}
	if s.Tasks < 0 || s.Tasks > MaxSynthLLMTasks || s.MaxAttempts < 0 || s.MaxAttempts > MaxSynthLLMAttempts ||
		s.ProbeRounds < 0 || s.ProbeRounds > MaxSynthLLMRounds || !(s.PassRate >= 0 && s.PassRate <= 1) ||
		s.Retries < llm.NoRetries || s.Retries > 100 || s.MaxTokens < 0 || s.TimeoutMS < 0 || s.Concurrency < 0 ||
		s.MaxCodeBytes < 0 || s.MaxCodeBytes > 64<<20 || s.RetainK < 0 || s.RetainK > MaxSynthLLMRounds || s.RetainMaxTurns < 0 || s.RetainMaxTurns > 200 ||
		s.RetainRepairs < 0 || s.RetainRepairs > MaxSynthLLMAttempts || s.TaskSteps < 0 || s.TaskSteps > MaxSynthLLMRounds {
		return bad("LLM synthesis settings out of range: tasks %d (0 to %d), attempts %d (0 to %d), probe rounds %d (0 to %d), pass rate %g (0 to 1)",
			s.Tasks, MaxSynthLLMTasks, s.MaxAttempts, MaxSynthLLMAttempts, s.ProbeRounds, MaxSynthLLMRounds, s.PassRate)
	}
	if s.Clock != "" {
		if _, err := time.Parse(time.RFC3339, s.Clock); err != nil {
			return bad("clock %q: %v", truncate(s.Clock, 64), err)
		}
	}
	total := 0
	for name, text := range s.Prompts {
		if name == "" || len(name) > 255 || name != filepath.Base(name) || name == "." || name == ".." || name[0] == '.' {
			return bad("prompt file name %q is not a plain file name", truncate(name, 80))
		}
		total += len(text)
	}
	if total > maxPromptBytes {
		return bad("prompts of %d bytes: at most %d", total, maxPromptBytes)
	}
	return nil
}

// PlanSynthLLM makes one job per planned scenario (llm.Plan) with the
// settings of cfg; the files of cfg.PromptDir travel in each job.
func PlanSynthLLM(cfg llm.Config, scenarios []llm.Scenario) ([]GroupRef, []*SynthLLMSpec, error) {
	if cfg.Client == nil {
		return nil, nil, errorf(CodeBadInput, nil, "no model client")
	}
	prompts, err := readPrompts(cfg.PromptDir)
	if err != nil {
		return nil, nil, err
	}
	c := cfg.Client
	base := SynthLLMSpec{BaseURL: c.BaseURL, Model: c.Model, Temperature: c.Temperature,
		MaxTokens: c.MaxTokens, Retries: c.Retries, TimeoutMS: c.Timeout.Milliseconds(), Prices: c.Prices,
		Tasks: cfg.TasksPerScenario, MaxAttempts: cfg.MaxAttempts, AuthAssumed: cfg.AuthAssumed,
		ProbeRounds: cfg.ProbeRounds, PassRate: cfg.PassRate, MaxCodeBytes: cfg.MaxCodeBytes, Prompts: prompts,
		RetainK: cfg.RetainK, RetainMaxTurns: cfg.RetainMaxTurns, RetainRepairs: cfg.RetainRepairs, RetainUser: cfg.RetainUser,
		TaskSteps: cfg.TaskSteps}
	if !cfg.Clock.IsZero() {
		base.Clock = cfg.Clock.UTC().Format(time.RFC3339)
	}
	var refs []GroupRef
	var specs []*SynthLLMSpec
	seen := map[string]bool{}
	for i, sc := range scenarios {
		s := base
		s.Scenario = sc
		if err := s.check(); err != nil {
			return nil, nil, err
		}
		if seen[sc.Name] {
			return nil, nil, errorf(CodeBadInput, nil, "two scenarios named %q", sc.Name)
		}
		seen[sc.Name] = true
		refs = append(refs, GroupRef{Index: i, Env: sc.Name})
		specs = append(specs, &s)
	}
	if len(refs) == 0 {
		return nil, nil, errorf(CodeBadInput, nil, "no scenario to build")
	}
	return refs, specs, nil
}

// readPrompts reads the regular files of an edited prompt directory.
func readPrompts(dir string) (map[string]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, errorf(CodeBadInput, err, "prompts")
	}
	out := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name()[0] == '.' {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, errorf(CodeBadInput, err, "prompts")
		}
		out[e.Name()] = string(b)
	}
	return out, nil
}

// RunSynthLLM runs the scenarios on the fleet (see Run); out is
// CreateSynthLLMOutput's.
func (d *Driver) RunSynthLLM(ctx context.Context, specs []*SynthLLMSpec, refs []GroupRef, out Output) error {
	none := func(context.Context, *store) error { return nil }
	_, err := d.drive(ctx, refs, out, none, func(ref GroupRef) *Job { return &Job{GroupRef: ref, SynthLLM: specs[ref.Index]} })
	return err
}

// runSynthLLM runs one scenario in a directory of its own; the result is
// that output directory (less the scratch builds of .work) as a tar of
// one top directory, "out".
func runSynthLLM(ctx context.Context, spec *SynthLLMSpec, index int, e *Endpoints, log func(string)) (*Result, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	base, key, err := e.resolve(spec.BaseURL)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "wasmenv-synth-llm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	client := &llm.Client{BaseURL: base, APIKey: key, Model: spec.Model, Temperature: spec.Temperature, MaxTokens: spec.MaxTokens,
		Retries: spec.Retries, Timeout: time.Duration(spec.TimeoutMS) * time.Millisecond, Prices: spec.Prices}
	client.SetConcurrency(spec.Concurrency)
	if log != nil {
		client.OnRetry = func(attempt int, wait time.Duration, err error) {
			log(fmt.Sprintf("%s: request retry %d in %s: %v", spec.Scenario.Name, attempt, wait.Round(time.Millisecond), err))
		}
	}
	cfg := llm.Config{Client: client, OutDir: filepath.Join(dir, "unit", "out"), TasksPerScenario: spec.Tasks,
		MaxAttempts: spec.MaxAttempts, AuthAssumed: spec.AuthAssumed, ProbeRounds: spec.ProbeRounds,
		PassRate: spec.PassRate, MaxCodeBytes: spec.MaxCodeBytes, Jobs: 1, Log: log,
		RetainK: spec.RetainK, RetainMaxTurns: spec.RetainMaxTurns, RetainRepairs: spec.RetainRepairs, RetainUser: spec.RetainUser,
		TaskSteps: spec.TaskSteps}
	if spec.Clock != "" {
		cfg.Clock, _ = time.Parse(time.RFC3339, spec.Clock) // checked
	}
	if len(spec.Prompts) > 0 {
		cfg.PromptDir = filepath.Join(dir, "prompts")
		if err := os.Mkdir(cfg.PromptDir, 0o755); err != nil {
			return nil, err
		}
		for name, text := range spec.Prompts {
			if err := os.WriteFile(filepath.Join(cfg.PromptDir, name), []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
	}
	rep, err := llm.RunScenario(ctx, cfg, spec.Scenario)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(cfg.OutDir, ".work")); err != nil {
		return nil, err
	}
	// The report names the worker's paths: name them relative to the
	// output directory (the driver puts its own back), so that the same
	// outcome gives the same bytes wherever it ran.
	if rep.Kept {
		rep.Dir, rep.Bundle = spec.Scenario.Name, spec.Scenario.Name+".wasm"
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "reports", spec.Scenario.Name+".json"), b, 0o644); err != nil {
		return nil, err
	}
	tarball, err := tarDir(filepath.Join(dir, "unit"))
	if err != nil {
		return nil, err
	}
	return &Result{Index: index, Lines: tarball, Summary: &rl.Summary{}}, nil
}
