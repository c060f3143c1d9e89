package llm

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// The stage names. Each has prompts/NAME.tmpl and prompts/NAME.schema.json.
const (
	StageScenarios = "scenarios"
	StageTasks     = "tasks"
	StageSchema    = "schema"
	StageData      = "data"
	StageToolSpec  = "toolspec"
	StageToolTests = "tooltests"
	StageCode      = "code"
	StageJudge     = "judge"
	StageVerifiers = "verifiers"
	StageProbe     = "probe"
	StageChecker   = "checker"
)

// stage is one step of the pipeline, in the one table below.
type stage struct {
	name string
	// run takes one environment through the stage, in table order. Nil
	// for a stage that runs inside another: scenarios (once per batch,
	// before any environment: pipeline.scenarios), judge (in the code
	// stage's check, per failing tool test) and checker (in the probe
	// stage, per round).
	run func(*envRun, context.Context) error
}

// pipelineStages is the pipeline, in order: the one place that says which
// stages there are and in which order they run. Stages and envRun.run read
// it.
var pipelineStages = []stage{
	{StageScenarios, nil},
	{StageTasks, (*envRun).runTasks},
	{StageSchema, (*envRun).runSchema},
	{StageData, (*envRun).runData},
	{StageToolSpec, (*envRun).runToolSpec},
	{StageToolTests, (*envRun).runToolTests},
	{StageCode, (*envRun).runCode},
	{StageJudge, nil},
	{StageVerifiers, (*envRun).runVerifiers},
	{StageProbe, (*envRun).runProbe},
	{StageChecker, nil},
	{StageRetention, (*envRun).runRetention},
	{StageRetentionRepair, nil},
}

// Stages lists every stage in pipeline order.
var Stages = func() []string {
	names := make([]string, len(pipelineStages))
	for i, s := range pipelineStages {
		names[i] = s.name
	}
	return names
}()

// promptedStages are the stages with a prompt template and schema: all
// but the retention gate, whose agent sees the environment itself
// (synth/retain has the examiner's prompt), and its repairs, which ask
// the verifiers stage's prompt again.
var promptedStages = func() []string {
	var names []string
	for _, s := range Stages {
		if s != StageRetention && s != StageRetentionRepair {
			names = append(names, s)
		}
	}
	return names
}()

// errQuality marks an environment dropped by quality assessment.
var errQuality = errors.New("quality assessment")

// run takes the environment through every stage, then writes its source
// and the bundle the probe stage built and assessed.
func (r *envRun) run(ctx context.Context) error {
	for _, s := range pipelineStages {
		if s.run == nil {
			continue
		}
		if err := s.run(r, ctx); err != nil {
			return err
		}
	}
	dir := filepath.Join(r.p.cfg.OutDir, r.sc.Name)
	if err := emit.Write(dir, r.source(r.code, r.final)); err != nil {
		return err
	}
	bundle := filepath.Join(r.p.cfg.OutDir, r.sc.Name+".wasm")
	if err := envpkg.Write(bundle, r.bundle); err != nil {
		return err
	}
	r.rep.Kept, r.rep.Dir, r.rep.Bundle = true, dir, bundle
	return nil
}
