package runtime

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// A guard gates the reward instead of adding to it: doing nothing earns
// nothing for "nothing else changed" (issue 14, point 6).
func TestGuardChecksGateTheReward(t *testing.T) {
	b := *testBundle(t, "mini", false)
	b.Tasks = append([]envpkg.Task(nil), b.Tasks...)
	put := &b.Tasks[0] // put-d: "d stored", "others unchanged"
	put.Checks = append([]envpkg.Check(nil), put.Checks...)
	put.Checks[1].Guard = true
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	score := func(calls ...[2]string) Score {
		t.Helper()
		ep := newEpisode(t, e, "put-d", 1)
		for _, c := range calls {
			call(t, ep, c[0], c[1])
		}
		s, err := ep.Score(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := score(); s.Reward != 0 || s.Passed != 1 || s.Total != 2 || !s.Checks[1].Guard {
		t.Errorf("doing nothing: %+v (without the guard it scored 0.5)", s)
	}
	if s := score([2]string{"put", `{"key":"d","value":"date","n":4}`}); s.Reward != 1 || !s.AllPassed {
		t.Errorf("ground truth: %+v", s)
	}
	// The task done, but something else broken: the guard fails, reward 0.
	if s := score([2]string{"put", `{"key":"d","value":"date","n":4}`}, [2]string{"put", `{"key":"a","value":"nope"}`}); s.Reward != 0 || !s.Checks[0].Passed {
		t.Errorf("guard failed: %+v", s)
	}
}
