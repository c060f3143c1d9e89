package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// ErrConfig is wrapped by errors about a Config that cannot run.
var ErrConfig = errors.New("llm: bad configuration")

// Run generates environments: scenarios first (or the given list), then
// every scenario through the stages, Jobs at a time. It writes each kept
// environment to OutDir/NAME (source) and OutDir/NAME.wasm (bundle), a
// report per environment under OutDir/reports, and the batch report to
// OutDir/report.json and OutDir/report.md. Run again with the same
// OutDir to resume: finished stages come from OutDir/.synth-cache.
func Run(ctx context.Context, cfg Config) (*BatchReport, error) {
	p, err := newPipeline(cfg)
	if err != nil {
		return nil, err
	}
	cfg = p.cfg
	scenarios, rep, err := p.plan(ctx)
	if err != nil {
		return rep, err
	}
	bar := newProgress(cfg.Progress, len(scenarios))
	p.bar = bar
	reports := make([]EnvReport, len(scenarios))
	var (
		wg       sync.WaitGroup
		sem      = make(chan struct{}, cfg.Jobs)
		mu       sync.Mutex
		firstErr error
	)
	for i, sc := range scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			er, err := p.runEnv(ctx, sc)
			reports[i] = er
			bar.done(er)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	bar.finish()
	if err := rep.Finish(cfg.OutDir, reports); err != nil && firstErr == nil {
		firstErr = err
	}
	return rep, firstErr
}

// Plan is the first part of Run, for running the scenarios elsewhere
// (fleet/): it returns the scenarios to build, the user's list or the
// model's answers, deduplicated and uniquely named, and the batch report
// begun. Each scenario then goes through RunScenario, and the reports,
// in plan order, through BatchReport.Finish.
func Plan(ctx context.Context, cfg Config) ([]Scenario, *BatchReport, error) {
	p, err := newPipeline(cfg)
	if err != nil {
		return nil, nil, err
	}
	return p.plan(ctx)
}

// RunScenario takes one scenario of Plan through every stage, as Run
// does: it writes OutDir/NAME, OutDir/NAME.wasm and OutDir/reports/NAME.json
// (the environment kept) or the report alone (dropped, with the reason),
// and the stage artifacts to OutDir/.synth-cache. An error is returned only
// for what stops a batch (cancellation, a broken endpoint, a disk error).
func RunScenario(ctx context.Context, cfg Config, sc Scenario) (EnvReport, error) {
	if !ValidScenarioName(sc.Name) {
		return EnvReport{Scenario: sc}, fmt.Errorf("%w: scenario name %q: want 1 to 64 of a-z 0-9 -, not reports", ErrConfig, sc.Name)
	}
	p, err := newPipeline(cfg)
	if err != nil {
		return EnvReport{Scenario: sc}, err
	}
	return p.runEnv(ctx, sc)
}

// ValidScenarioName reports whether name can be a planned scenario's
// name: an environment name that is no other entry of the output directory.
func ValidScenarioName(name string) bool {
	return envpkg.ValidEnvName(name) && !reservedNames[name]
}

// Finish totals the report over envs, one per scenario in plan order, and
// writes dir/report.json and dir/report.md.
func (b *BatchReport) Finish(dir string, envs []EnvReport) error {
	b.Envs = envs
	b.total()
	return b.write(dir)
}

func newPipeline(cfg Config) (*pipeline, error) {
	cfg.defaults()
	if cfg.Client == nil || cfg.Client.BaseURL == "" || cfg.Client.Model == "" {
		return nil, fmt.Errorf("%w: a client with a base URL and a model is required", ErrConfig)
	}
	if cfg.OutDir == "" {
		return nil, fmt.Errorf("%w: an output directory is required", ErrConfig)
	}
	if err := checkToolLanguage(cfg.ToolLanguage); err != nil {
		return nil, err
	}
	prompts, err := LoadPrompts(cfg.PromptDir)
	if err != nil {
		return nil, err
	}
	return &pipeline{cfg: cfg, prompts: prompts, store: store{dir: filepath.Join(cfg.OutDir, ".synth-cache")}}, nil
}

// plan runs the scenarios stage.
func (p *pipeline) plan(ctx context.Context) ([]Scenario, *BatchReport, error) {
	if len(p.cfg.Scenarios) == 0 && len(p.cfg.Seeds) == 0 {
		return nil, nil, fmt.Errorf("%w: give seed domains or a scenario list", ErrConfig)
	}
	rep := &BatchReport{Model: p.cfg.Client.Model}
	scenarios, err := p.scenarios(ctx, rep)
	if err != nil {
		return nil, rep, err
	}
	if len(scenarios) == 0 {
		return nil, rep, fmt.Errorf("no scenarios to build")
	}
	rep.Scenarios = len(scenarios)
	return scenarios, rep, nil
}

// scenariosPerRequest bounds one scenarios request (AWM's value); more are
// asked for in further requests that list the ones already kept, until
// NumScenarios are kept or Config.ScenarioStalls requests in a row add
// nothing new.
const scenariosPerRequest = 10

// reservedNames are output-directory entries an environment may not take.
var reservedNames = map[string]bool{"reports": true, "report": true}

// scenarios returns the scenarios to build: the user's list or the model's
// answers from the seeds, deduplicated.
func (p *pipeline) scenarios(ctx context.Context, rep *BatchReport) ([]Scenario, error) {
	d := newDeduper(p.cfg.Client)
	rep.DedupMethod = d.method
	var kept []Scenario
	names := map[string]int{}
	consider := func(list []Scenario) error {
		rep.Proposed += len(list)
		texts := make([]string, len(list))
		for i, s := range list {
			texts[i] = s.Title + ". " + s.Description
		}
		dups, err := d.add(ctx, texts)
		if err != nil {
			return fmt.Errorf("scenario dedup: %w", err)
		}
		for i, s := range list {
			name := emit.EnvName(s.Name)
			if name == "env" && s.Title != "" {
				name = emit.EnvName(s.Title)
			}
			if k := dups[i]; k >= 0 {
				rep.Duplicates = append(rep.Duplicates, Dropped{What: name, Reason: "near-duplicate of " + kept[k].Name})
				continue
			}
			base := name
			for n := 2; names[name] > 0 || reservedNames[name]; n++ {
				name = fmt.Sprintf("%s-%d", base, n)
			}
			names[name]++
			s.Name = name
			kept = append(kept, s)
		}
		return nil
	}
	if len(p.cfg.Scenarios) > 0 {
		return kept, consider(append([]Scenario(nil), p.cfg.Scenarios...))
	}
	r := &envRun{p: p, sc: Scenario{Name: "scenarios"}, ledger: newLedger(), rep: &EnvReport{}}
	defer func() { rep.ScenarioStage = r.ledger.snapshot()[StageScenarios] }()
	type scenariosOut struct {
		Scenarios []Scenario `json:"scenarios"`
	}
	for batch, stalls := 0, 0; len(kept) < p.cfg.NumScenarios && stalls < p.cfg.ScenarioStalls; batch++ {
		var existing []string
		for _, s := range kept {
			existing = append(existing, s.Title)
		}
		data := map[string]any{"Seeds": p.cfg.Seeds, "N": min(scenariosPerRequest, p.cfg.NumScenarios-len(kept)),
			"Existing": existing, "AuthAssumed": p.cfg.AuthAssumed}
		var out scenariosOut
		err := runStage(ctx, r, stageCall{stage: StageScenarios, key: fmt.Sprint(batch), data: data}, &out, func(_ context.Context, o *scenariosOut) verdict {
			if len(o.Scenarios) == 0 {
				return verdict{Problems: []string{"no scenarios"}}
			}
			return verdict{}
		})
		if err != nil {
			return nil, err
		}
		before := len(kept)
		if err := consider(out.Scenarios); err != nil {
			return nil, err
		}
		if len(kept) == before {
			stalls++
		} else {
			stalls = 0
		}
	}
	if len(kept) > p.cfg.NumScenarios {
		kept = kept[:p.cfg.NumScenarios]
	}
	return kept, nil
}

// runEnv takes one scenario through every stage and the quality gates. An
// error is returned only for what stops the batch (cancellation, a broken
// endpoint, a disk error); a scenario the pipeline cannot repair is dropped
// with its reason in the report.
func (p *pipeline) runEnv(ctx context.Context, sc Scenario) (EnvReport, error) {
	rep := &EnvReport{Scenario: sc}
	r := &envRun{p: p, sc: sc, ledger: newLedger(), rep: rep, workDir: filepath.Join(p.cfg.OutDir, ".work", sc.Name)}
	err := r.run(ctx)
	rep.Stages = r.ledger.snapshot()
	if err != nil {
		rep.Kept = false
		rep.Reason = reasonOf(err)
		if !errors.Is(err, ErrStageFailed) && !errors.Is(err, errQuality) {
			return *rep, fmt.Errorf("%s: %w", sc.Name, err)
		}
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if werr := writeFile(filepath.Join(p.cfg.OutDir, "reports", sc.Name+".json"), b); werr != nil {
		return *rep, werr
	}
	return *rep, nil
}

func (b *BatchReport) write(dir string) error {
	j, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "report.json"), j); err != nil {
		return err
	}
	var md bytes.Buffer
	b.WriteMarkdown(&md)
	return writeFile(filepath.Join(dir, "report.md"), md.Bytes())
}
