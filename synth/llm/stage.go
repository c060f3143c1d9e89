package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrStageFailed means a stage's attempts ran out before its output passed
// execution feedback; the environment (or task) is dropped with the
// problems of the best attempt as the reason.
var ErrStageFailed = errors.New("stage failed")

// StageError names the stage and its last problems.
type StageError struct {
	Stage    string
	Attempts int
	Problems []string
}

func (e *StageError) Error() string {
	return fmt.Sprintf("%s: %d attempts, still: %s", e.Stage, e.Attempts, strings.Join(firstN(e.Problems, 3), "; "))
}

func (e *StageError) Unwrap() error { return ErrStageFailed }

// verdict is execution feedback on one attempt.
type verdict struct {
	// Problems are fed back to the model; none means the attempt passed.
	Problems []string
	// Score ranks attempts (higher is better); the best attempt is kept.
	Score float64
	// Accept ends the stage although there are problems (AWM: under 10%
	// failing SQL statements, the clean ones are kept).
	Accept bool
	// Fatal ends the stage at once: a problem the model cannot fix.
	Fatal error
	// Dropped is what the check removed from the output (failing SQL
	// statements, tool tests judged wrong). Only the kept attempt's drops
	// reach the report, once: a check has no side effects.
	Dropped []Dropped
}

// stageCall describes one stage run.
type stageCall struct {
	stage string
	key   string // extra cache-key material (scenario, round)
	data  any    // template data
	// keyOnly caches by key alone, not by the rendered messages: for a
	// verdict that depends on less than the prompt shows (the judge's).
	keyOnly bool
	// prompt is the template to render when it is not the stage's own (the
	// code stage in another tool language, language.go).
	prompt string
}

// template is the prompt template and schema the call renders and checks.
func (sc stageCall) template() string {
	if sc.prompt != "" {
		return sc.prompt
	}
	return sc.stage
}

// cachedStage is what the artifact store keeps for a stage.
type cachedStage struct {
	// Scenario and Stage name whose artifact it is: a run takes an
	// artifact only for the scenario and stage it asks about, and the
	// fleet's driver takes a worker's only for that worker's scenario
	// (ArtifactScenario). Artifacts written before these fields existed
	// have neither.
	Scenario string   `json:"scenario,omitempty"`
	Stage    string   `json:"stage,omitempty"`
	Content  string   `json:"content"`
	Attempts int      `json:"attempts"`
	Problems []string `json:"problems,omitempty"`
	Usage    Usage    `json:"usage"`
	Cost     float64  `json:"cost"`
	// Accepted is the output as its check left it, and Dropped what the
	// check removed: a resumed run takes both as they are, without running
	// the check (a build, tool tests, gates) again. Artifacts written
	// before these fields existed are checked again.
	Accepted json.RawMessage `json:"accepted,omitempty"`
	Dropped  []Dropped       `json:"dropped,omitempty"`
}

// runStage asks the model for a stage's output, validates it against the
// stage's schema, runs check on it, and feeds the problems back until the
// output passes, check accepts it, or MaxAttempts is reached. out receives
// the best attempt. check may modify its argument (to drop failing parts)
// and says what it dropped in the verdict; it must not change anything
// else, since it runs on attempts that are not kept. A cached result is
// taken as its check left it.
func runStage[T any](ctx context.Context, r *envRun, sc stageCall, out *T, check func(context.Context, *T) verdict) error {
	p := r.p
	msgs, err := p.prompts.messages(sc.template(), sc.data)
	if err != nil {
		return err
	}
	var key string
	if sc.keyOnly {
		key = p.store.key(sc.stage, p.prompts.text[sc.template()], p.cfg.Client.Model, sc.key)
	} else {
		key = p.store.key(sc.stage, p.prompts.text[sc.template()], p.cfg.Client.Model, sc.key, msgs)
	}
	var cached cachedStage
	if ok, err := p.store.get(key, &cached); err != nil {
		return err
	} else if ok && (cached.Scenario == "" || cached.Scenario == r.sc.Name) && (cached.Stage == "" || cached.Stage == sc.stage) {
		var v T
		hit := false
		if cached.Accepted != nil {
			hit = json.Unmarshal(cached.Accepted, &v) == nil
		} else if err := p.prompts.validate(sc.template(), cached.Content, &v); err == nil {
			vd := check(ctx, &v)
			hit = vd.Fatal == nil && (len(vd.Problems) == 0 || vd.Accept)
			cached.Dropped = vd.Dropped
		}
		if hit {
			*out = v
			r.drop(cached.Dropped)
			r.ledger.add(sc.stage, cached.Attempts, true, true, cached.Usage, cached.Cost)
			p.bar.stage(Usage{}, 0)
			return nil
		}
	}
	maxAttempts := p.cfg.MaxAttempts
	var (
		best      *T
		bestScore = -1.0
		bestProbs []string
		bestText  string
		bestDrops []Dropped
		usage     Usage
		cost      float64
	)
	attempt := 0
	finish := func(ok bool, probs []string) error {
		r.ledger.add(sc.stage, attempt, ok, false, usage, cost)
		p.bar.stage(usage, cost)
		if best == nil {
			return &StageError{Stage: sc.stage, Attempts: attempt, Problems: probs}
		}
		*out = *best
		r.drop(bestDrops)
		if ok {
			accepted, err := json.Marshal(best)
			if err != nil {
				return err
			}
			return p.store.put(key, cachedStage{Scenario: r.sc.Name, Stage: sc.stage, Content: bestText, Attempts: attempt, Problems: bestProbs,
				Usage: usage, Cost: cost, Accepted: accepted, Dropped: bestDrops})
		}
		return &StageError{Stage: sc.stage, Attempts: attempt, Problems: bestProbs}
	}
	var lastProbs []string
	for attempt = 1; attempt <= maxAttempts; attempt++ {
		resp, err := p.cfg.Client.Chat(ctx, Request{Messages: msgs, Schema: p.prompts.schemaRaw[sc.template()], SchemaName: sc.stage})
		if err != nil {
			r.ledger.add(sc.stage, attempt, false, false, usage, cost)
			p.bar.stage(usage, cost)
			return fmt.Errorf("%s: %w", sc.stage, err)
		}
		usage.PromptTokens += resp.Usage.PromptTokens
		usage.CompletionTokens += resp.Usage.CompletionTokens
		usage.TotalTokens += resp.Usage.TotalTokens
		cost += p.cfg.Client.Prices.Cost(resp.Usage)
		content := resp.Message.Content
		var v T
		var vd verdict
		if resp.FinishReason == "length" {
			vd = verdict{Problems: []string{"the answer was cut off at the token limit: answer more briefly"}}
		} else if err := p.prompts.validate(sc.template(), content, &v); err != nil {
			vd = verdict{Problems: []string{err.Error()}}
		} else {
			vd = check(ctx, &v)
			if vd.Fatal != nil {
				r.ledger.add(sc.stage, attempt, false, false, usage, cost)
				p.bar.stage(usage, cost)
				return fmt.Errorf("%s: %w", sc.stage, vd.Fatal)
			}
			if vd.Score > bestScore || best == nil {
				vv := v
				best, bestScore, bestProbs, bestText, bestDrops = &vv, vd.Score, vd.Problems, content, vd.Dropped
			}
			if len(vd.Problems) == 0 || vd.Accept {
				best, bestProbs, bestText, bestDrops = &v, vd.Problems, content, vd.Dropped
				return finish(true, nil)
			}
		}
		lastProbs = vd.Problems
		if r.rep != nil && len(vd.Problems) > 0 {
			r.rep.Repairs = append(r.rep.Repairs, fmt.Sprintf("%s attempt %d: %s", sc.stage, attempt, strings.Join(firstN(vd.Problems, 2), "; ")))
		}
		r.logf("%s attempt %d: %d problems: %s", sc.stage, attempt, len(vd.Problems), strings.Join(firstN(vd.Problems, 2), "; "))
		fb, err := p.prompts.feedbackMessage(sc.stage, attempt, summarize(vd.Problems))
		if err != nil {
			return err
		}
		msgs = append(msgs, Message{Role: "assistant", Content: content}, Message{Role: "user", Content: fb})
		if n := len(msgs); n > 2+2*keptRepairs {
			// Keep the prompt and the last repairs only, so that a long
			// answer (tool code) repaired many times does not grow the
			// context without bound.
			msgs = append(msgs[:2:2], msgs[n-2*keptRepairs:]...)
		}
	}
	attempt = maxAttempts
	if best == nil {
		return finish(false, lastProbs)
	}
	return finish(false, bestProbs)
}

// drop records in the report what a kept attempt's check dropped.
func (r *envRun) drop(d []Dropped) {
	if r.rep != nil {
		r.rep.Dropped = append(r.rep.Dropped, d...)
	}
}

// keptRepairs is how many earlier answers and their feedback a repair
// request carries.
const keptRepairs = 2

// summarize keeps feedback short: at most 12 problems of at most 600
// characters each, and says how many were left out.
func summarize(problems []string) []string {
	const maxProblems, maxLen = 12, 600
	var out []string
	for i, pr := range problems {
		if i == maxProblems {
			out = append(out, fmt.Sprintf("(and %d more problems)", len(problems)-maxProblems))
			break
		}
		out = append(out, truncate(pr, maxLen))
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// mustJSON encodes v for prompts and reports.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
