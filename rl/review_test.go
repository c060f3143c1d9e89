package rl_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// loadMini builds testdata/envs/mini (the sandbox's misbehaving tools).
func loadMini(t *testing.T) *runtime.Env {
	t.Helper()
	b, err := compiler.Build(context.Background(), filepath.Join("..", "testdata", "envs", "mini"), compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// byIndex plays a different script per rollout of the group.
type byIndex []script

func (b byIndex) Act(ctx context.Context, t *rl.Turn) (rl.Reply, error) {
	return b[t.Index].Act(ctx, t)
}

// A rollout ended by the environment's failure is not the agent's doing:
// it gets no advantage and does not enter its group's baseline (the learner
// drops such rollouts, wasmlearn/data.py), so the kept rollouts' advantages
// are relative to each other only.
func TestEnvErrorRolloutsLeaveTheBaseline(t *testing.T) {
	env := loadMini(t)
	put := script{{ToolCalls: []rl.ToolCall{call("1", "put", `{"key":"d","value":"date","n":4}`)}}}
	panics := script{{ToolCalls: []rl.ToolCall{call("1", "abuse", `{"mode":"panic"}`)}}}
	var out rltest.Collect
	_, err := rl.Run(context.Background(), []*runtime.Env{env}, byIndex{put, panics, {}, {}},
		rl.Config{Group: 4, Tasks: "put-d"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	rs := out.All()
	if len(rs) != 4 || !rs[1].EnvError || rs[0].Reward != 1 {
		t.Fatalf("rollouts: %+v", rs)
	}
	want := []float64{2.0 / 3, 0, -1.0 / 3, -1.0 / 3}
	for i, r := range rs {
		if math.Abs(r.Advantage-want[i]) > 1e-9 {
			t.Errorf("rollout %d (env error %v): advantage %v, want %v", i, r.EnvError, r.Advantage, want[i])
		}
	}
}

// spend answers like script and reports tokens spent per turn.
type spend struct {
	script
	tokens int
}

func (s spend) Act(ctx context.Context, t *rl.Turn) (rl.Reply, error) {
	r, err := s.script.Act(ctx, t)
	r.Usage = &rl.Usage{CompletionTokens: s.tokens}
	return r, err
}

// A final text answer given on the turn that spends the last of the token
// budget is still the agent's answer, and is scored.
func TestAnswerOnTheLastTokensIsScored(t *testing.T) {
	env := loadMini(t)
	p := spend{tokens: 50, script: script{
		{ToolCalls: []rl.ToolCall{call("1", "get", `{"key":"a"}`), call("2", "delete", `{"keys":["a"]}`)}},
		{Content: "It was avocado."},
	}}
	var out rltest.Collect
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, p,
		rl.Config{Group: 1, Tasks: "delete-a", MaxTokens: 100}, &out); err != nil {
		t.Fatal(err)
	}
	r := out.All()[0]
	if r.Answer == nil || *r.Answer != "It was avocado." || r.Reward != 1 || r.Finish != rl.FinishStop {
		t.Errorf("answer %v, reward %v, finish %s, checks %+v", r.Answer, r.Reward, r.Finish, r.Checks)
	}
}

// overwrites is a reward whose own components reuse the base names.
type overwrites struct{}

func (overwrites) Name() string { return "overwrites" }

func (overwrites) Score(rl.RewardInput) (float64, map[string]float64) {
	return 0.5, map[string]float64{"all_passed": 0}
}

// The summary counts successes from the runtime's score (typed), not from
// a reward component a reward may name as it likes; per-env rows agree.
func TestSummaryCountsSuccessFromTheScore(t *testing.T) {
	env := rltest.Load(t, "store")
	var out rltest.Collect
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{},
		rl.Config{Group: 2, Tasks: "cancel-*", Reward: overwrites{}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Succeeded != sum.Rollouts || sum.Rollouts == 0 || len(sum.Envs) != 1 || sum.Envs[0].SuccessRate != 1 {
		t.Errorf("succeeded %d of %d, envs %+v", sum.Succeeded, sum.Rollouts, sum.Envs)
	}
}
