package llm

import (
	"encoding/json"

	"github.com/wasmenv/wasmenv/synth/retain"
)

// The retention gate's outcome is stored as a stage artifact (cachedStage)
// naming its scenario and stage, like every other artifact: the fleet's
// driver takes a worker's artifact only when it names that worker's
// scenario (ArtifactScenario), so a bare report (as stored before) made
// every gated scenario on the fleet fail.

// storeRetention stores the gate's report under key.
func (r *envRun) storeRetention(key string, rep retain.Report) error {
	accepted, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	return r.p.store.put(key, cachedStage{Scenario: r.sc.Name, Stage: StageRetention, Accepted: accepted,
		Usage: Usage{PromptTokens: rep.PromptTokens, CompletionTokens: rep.CompletionTokens}})
}

// cachedRetention reads the gate's report stored under key: an artifact
// of this scenario's gate, or a bare report as runs before stored it.
func (r *envRun) cachedRetention(key string) (retain.Report, bool, error) {
	var c cachedStage
	ok, err := r.p.store.get(key, &c)
	if err != nil || !ok {
		return retain.Report{}, false, err
	}
	var rep retain.Report
	switch {
	case c.Stage == StageRetention && c.Scenario == r.sc.Name && c.Accepted != nil:
		ok = json.Unmarshal(c.Accepted, &rep) == nil
	case c.Stage == "" && c.Scenario == "":
		ok, err = r.p.store.get(key, &rep)
	default:
		ok = false // another scenario's or stage's artifact: play again
	}
	return rep, ok, err
}
