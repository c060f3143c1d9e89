package llm

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
)

// Config configures a synthesis run. Zero values take the defaults named
// on each field (the papers' values where there is one).
type Config struct {
	Client *Client
	// OutDir receives one env source dir and one bundle per kept
	// environment, the reports, and the stage artifacts (.synth-cache).
	OutDir string
	// PromptDir holds edited prompt templates and schemas (see WritePrompts);
	// files it lacks come from the built-in set.
	PromptDir string
	// Seeds are seed domains for the scenarios stage.
	Seeds []string
	// Scenarios, when given, are used as they are and the scenarios stage
	// only deduplicates them.
	Scenarios []Scenario
	// NumScenarios is how many scenarios to ask for (default 10).
	NumScenarios int
	// ScenarioStalls ends the scenarios stage after this many requests in a
	// row that add no new scenario (AWM: 10).
	ScenarioStalls int
	// TasksPerScenario is k (AWM: 10).
	TasksPerScenario int
	// MaxAttempts per stage: the first try plus up to 5 retries (AWM: 5).
	MaxAttempts int
	// ToolLanguage is the language the code stage asks for: LanguageGo
	// ("" too) or LanguagePython (docs/PYTHON.md).
	ToolLanguage string
	// AuthAssumed: the user is already authenticated (AWM). False: tools
	// authenticate the user first (τ-bench).
	AuthAssumed bool
	// Clock is the environment clock (default 2024-06-03T09:00:00Z).
	Clock time.Time
	// ProbeRounds is N, the test agent's rounds (default 3).
	ProbeRounds int
	// PassRate is the probe pass rate an environment needs (EnvScaler: 0.85).
	PassRate float64
	// RetainK turns the retention gate on (synth/retain, Agent-World: 4):
	// the model plays each task this many times as the agent before the
	// environment is kept. 0: no gate.
	RetainK int
	// RetainMaxTurns bounds each of the gate's attempts (0: rl's 20).
	RetainMaxTurns int
	// RetainRepairs is how many times a task the gate's examiner finds at
	// the environment's fault goes back to the verifiers stage with the
	// examiner's reason before it is dropped (stage_retain_repair.go;
	// 0: none, dropped at once).
	RetainRepairs int
	// RetainUser has a simulated user (rl/openai.User, the one `wasmenv
	// serve --user` and `rollout --user` play) open and answer each of the
	// gate's attempts, on the same endpoint and model; false: the
	// instruction opens the conversation.
	RetainUser bool
	// TaskSteps asks for tasks of depth (task_steps.go): each needs at
	// least this many tool calls and a decision the agent makes from what
	// it reads; a task whose ground truth makes fewer calls is fed back to
	// the verifiers stage once, then dropped with its reason, and the
	// rules the agent sees state the application's clock. 0: today's
	// prompts, exactly (recorded runs replay unchanged).
	TaskSteps int
	// Jobs is how many scenarios run at once (default 4).
	Jobs int
	// Compiler options for every build. Their zero caps are the
	// compiler's (1 MiB of source, 1 GiB of build memory per process, on
	// Linux): each of the Jobs builds at once is bounded.
	Compiler compiler.Options
	// MaxCodeBytes caps the code stage's answer, all files together
	// (default 256 KiB); a longer one is fed back, not built.
	MaxCodeBytes int
	// Progress receives a one-line progress bar (nil: none).
	Progress io.Writer
	// Log receives a line per repaired or failed attempt (nil: none).
	Log func(string)
}

func (c *Config) defaults() {
	if c.NumScenarios == 0 {
		c.NumScenarios = 10
	}
	if c.ScenarioStalls == 0 {
		c.ScenarioStalls = 10
	}
	if c.TasksPerScenario == 0 {
		c.TasksPerScenario = 10
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 6
	}
	if c.Clock.IsZero() {
		c.Clock = time.Date(2024, 6, 3, 9, 0, 0, 0, time.UTC)
	}
	if c.ProbeRounds == 0 {
		c.ProbeRounds = 3
	}
	if c.PassRate == 0 {
		c.PassRate = 0.85
	}
	if c.Jobs == 0 {
		c.Jobs = 4
	}
	if c.MaxCodeBytes == 0 {
		c.MaxCodeBytes = DefaultMaxCodeBytes
	}
}

// DefaultMaxCodeBytes is Config.MaxCodeBytes' default: 256 KiB, some ten
// times the tool code of a generated environment.
const DefaultMaxCodeBytes = 256 << 10

// DefaultMaxAnswerBytes caps one model answer (Client.MaxResponseBytes'
// default): the largest stage answer, the code, is capped at
// DefaultMaxCodeBytes, so 4 MiB leaves room for JSON and logprobs.
const DefaultMaxAnswerBytes = 4 << 20

// Scenario is one environment to generate.
type Scenario struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

type taskDraft struct {
	ID          string `json:"id"`
	Instruction string `json:"instruction"`
	Kind        string `json:"kind"` // write | read
}

type toolSpec struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Writes      bool      `json:"writes"`
	Arguments   []argSpec `json:"arguments"`
}

type argSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// pipeline is what every scenario of a run shares.
type pipeline struct {
	cfg     Config
	prompts *Prompts
	store   store
	bar     *tally // nil until the scenarios are known
}

// envRun is one scenario going through the stages.
type envRun struct {
	p      *pipeline
	sc     Scenario
	ledger *ledger
	rep    *EnvReport

	tasks   []taskDraft
	schema  []string
	data    []string
	rules   string
	spec    []toolSpec
	tests   []toolTest
	code    map[string][]byte
	final   []envpkg.Task             // the tasks that pass the gates (verifiers)
	bundle  *envpkg.Bundle            // built once from the final state (probe)
	built   map[string]*envpkg.Bundle // the last state built, by its source
	workDir string
}

func (r *envRun) logf(format string, args ...any) {
	if r.p.cfg.Log != nil {
		r.p.cfg.Log(r.sc.Name + ": " + fmt.Sprintf(format, args...))
	}
}

// base is the template data every stage of a scenario sees.
func (r *envRun) base() map[string]any {
	return map[string]any{
		"Scenario":    r.sc,
		"K":           r.p.cfg.TasksPerScenario,
		"AuthAssumed": r.p.cfg.AuthAssumed,
		"Clock":       r.p.cfg.Clock.UTC().Format(time.RFC3339),
		"Tasks":       r.tasks,
		"Schema":      r.schema,
		"Data":        r.data,
		"Rules":       r.rules,
		"Tools":       r.spec,
		"Tests":       r.tests,
		"TaskSteps":   r.p.cfg.TaskSteps,
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// reasonOf turns a stage error into a drop reason.
func reasonOf(err error) string {
	var se *StageError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
