package llm

// corpusDepth holds what the runs recorded with --task-steps (round 9)
// ran with beyond corpusRun's fields, keyed by scenario file: the runs
// before them keep their positional entries unchanged (--task-steps 0,
// --retain-max-turns 12).
var corpusDepth = map[string]depthRun{
	"scenarios-r9b-assumed.jsonl":  {steps: 4, turns: 16},
	"scenarios-r9b-tools.jsonl":    {steps: 4, turns: 16},
	"scenarios-r9b2-assumed.jsonl": {steps: 4, turns: 16},
	"scenarios-r9b2-tools.jsonl":   {steps: 4, turns: 16},
}

// depthRun is a recorded run's --task-steps and --retain-max-turns.
type depthRun struct {
	steps int // --task-steps (0: off)
	turns int // --retain-max-turns (0: the older runs' 12)
}

// maxTurns is the run's --retain-max-turns.
func (d depthRun) maxTurns() int {
	if d.turns == 0 {
		return 12
	}
	return d.turns
}
