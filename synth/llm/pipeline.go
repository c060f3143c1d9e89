package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
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
	// AuthAssumed: the user is already authenticated (AWM). False: tools
	// authenticate the user first (τ-bench).
	AuthAssumed bool
	// Clock is the environment clock (default 2024-06-03T09:00:00Z).
	Clock time.Time
	// ProbeRounds is N, the test agent's rounds (default 3).
	ProbeRounds int
	// PassRate is the probe pass rate an environment needs (EnvScaler: 0.85).
	PassRate float64
	// Jobs is how many scenarios run at once (default 4).
	Jobs int
	// Compiler options for every build.
	Compiler compiler.Options
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
}

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
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

var taskIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

func (r *envRun) runTasks(ctx context.Context) error {
	var out struct {
		Tasks []taskDraft `json:"tasks"`
	}
	err := runStage(ctx, r, stageCall{stage: StageTasks, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Tasks []taskDraft `json:"tasks"`
	}) verdict {
		var probs []string
		seen := map[string]bool{}
		for i, t := range o.Tasks {
			if !taskIDRE.MatchString(t.ID) {
				probs = append(probs, fmt.Sprintf("task %d: id %q must match [A-Za-z0-9_.:-]+", i+1, t.ID))
			}
			if seen[t.ID] {
				probs = append(probs, fmt.Sprintf("task id %q is repeated", t.ID))
			}
			seen[t.ID] = true
		}
		if len(o.Tasks) > r.p.cfg.TasksPerScenario {
			o.Tasks = o.Tasks[:r.p.cfg.TasksPerScenario]
		}
		return verdict{Problems: probs, Score: float64(len(o.Tasks) - len(probs))}
	})
	r.tasks = out.Tasks
	return err
}

func (r *envRun) runSchema(ctx context.Context) error {
	var out struct {
		Statements []string `json:"statements"`
	}
	err := runStage(ctx, r, stageCall{stage: StageSchema, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Statements []string `json:"statements"`
	}) verdict {
		db, err := newScratch()
		if err != nil {
			return verdict{Fatal: err}
		}
		defer db.Close()
		errs := db.run(o.Statements, "CREATE")
		kept, v := sqlVerdict(o.Statements, errs)
		noPK, err := db.tablesWithoutPK()
		if err != nil {
			return verdict{Fatal: err}
		}
		for _, t := range noPK {
			v.Problems = append(v.Problems, fmt.Sprintf("table %s has no PRIMARY KEY (every table needs one: diffs key rows by it)", t))
			v.Accept = false
		}
		if v.Accept {
			r.dropStatements(StageSchema, o.Statements, errs)
			o.Statements = kept
		}
		return v
	})
	r.schema = out.Statements
	return err
}

func (r *envRun) runData(ctx context.Context) error {
	var out struct {
		Statements []string `json:"statements"`
	}
	err := runStage(ctx, r, stageCall{stage: StageData, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Statements []string `json:"statements"`
	}) verdict {
		db, err := newScratch()
		if err != nil {
			return verdict{Fatal: err}
		}
		defer db.Close()
		if errs := db.run(r.schema, "CREATE"); len(errs) > 0 {
			return verdict{Fatal: fmt.Errorf("kept schema fails: %s", errs[0])}
		}
		errs := db.run(o.Statements, "INSERT")
		kept, v := sqlVerdict(o.Statements, errs)
		counts, err := db.tableCounts()
		if err != nil {
			return verdict{Fatal: err}
		}
		for t, n := range counts {
			if n == 0 {
				v.Problems = append(v.Problems, fmt.Sprintf("table %s has no rows: every table needs sample rows", t))
				v.Accept = false
			}
		}
		if v.Accept {
			r.dropStatements(StageData, o.Statements, errs)
			o.Statements = kept
		}
		return v
	})
	r.data = out.Statements
	return err
}

func (r *envRun) dropStatements(stage string, stmts []string, errs []stmtError) {
	for _, e := range errs {
		r.rep.Dropped = append(r.rep.Dropped, Dropped{What: stage + " " + e.String(), Reason: fmt.Sprintf("under %.0f%% of the stage's statements failed: the clean ones are kept (AWM)", 100*MaxFailingFraction)})
	}
}

var toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var argTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true,
	"array of string": true, "array of integer": true}

func (r *envRun) runToolSpec(ctx context.Context) error {
	type specOut struct {
		Rules string     `json:"rules"`
		Tools []toolSpec `json:"tools"`
	}
	var out specOut
	err := runStage(ctx, r, stageCall{stage: StageToolSpec, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *specOut) verdict {
		var probs []string
		seen := map[string]bool{}
		for _, t := range o.Tools {
			if !toolNameRE.MatchString(t.Name) {
				probs = append(probs, fmt.Sprintf("tool name %q must be snake_case", t.Name))
			}
			if seen[t.Name] {
				probs = append(probs, fmt.Sprintf("tool %s is listed twice", t.Name))
			}
			seen[t.Name] = true
			for _, a := range t.Arguments {
				if !toolNameRE.MatchString(a.Name) {
					probs = append(probs, fmt.Sprintf("tool %s: argument name %q must be snake_case", t.Name, a.Name))
				}
				if !argTypes[a.Type] {
					probs = append(probs, fmt.Sprintf("tool %s: argument %s has type %q; use one of string, integer, number, boolean, array of string, array of integer", t.Name, a.Name, a.Type))
				}
			}
		}
		return verdict{Problems: probs, Score: float64(len(o.Tools) - len(probs))}
	})
	r.rules, r.spec = out.Rules, out.Tools
	return err
}

// goName is the exported Go name of a snake_case tool name.
func goName(snake string) string {
	var b strings.Builder
	for _, part := range strings.Split(snake, "_") {
		if part == "" {
			continue
		}
		switch strings.ToUpper(part) {
		case "ID", "URL", "API", "JSON", "SQL", "HTTP", "UUID":
			b.WriteString(strings.ToUpper(part))
		default:
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// reasonOf turns a stage error into a drop reason.
func reasonOf(err error) string {
	var se *StageError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
