package serve

import (
	"math"
	"net/http"
	"testing"
)

// aggregate_metrics answers as NeMo Gym's SimpleResourcesServer does
// (nemo_gym/reward_profile.py compute_aggregate_metrics at
// NVIDIA-NeMo/Gym 07d6b0d0): stat/field keys per task and over all
// rollouts, booleans as 0/1, usage's numbers included, a one-rollout
// task's std 0, key_metrics the mean/* entries. Values worked out by hand.
func TestNeMoGymAggregateMetrics(t *testing.T) {
	ts := newTestServer(t, Options{NeMoGymRoot: "mini"})
	c := newNGClient(t, ts, "")
	body := `{"verify_responses": [
		{"_ng_task_index": 0, "_ng_rollout_index": 1, "reward": 0.0, "terminated": false, "response": {"usage": {"output_tokens": 20}}},
		{"_ng_task_index": 0, "_ng_rollout_index": 0, "reward": 1.0, "terminated": true, "response": {"usage": {"output_tokens": 10, "input_tokens_details": {"cached_tokens": 0}}}},
		{"_ng_task_index": 1, "_ng_rollout_index": 0, "reward": 0.5, "task": "put-d"}]}`
	code, m := c.postJSON("aggregate_metrics", body)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d %v", code, m)
	}
	near := func(what string, got any, want float64) {
		t.Helper()
		if f, ok := got.(float64); !ok || math.Abs(f-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	agent := m["agent_metrics"].(map[string]any)
	near("mean/reward", agent["mean/reward"], 0.5)
	near("std/reward", agent["std/reward"], 0.5)
	near("median/reward", agent["median/reward"], 0.5)
	near("max/reward", agent["max/reward"], 1)
	near("mean/terminated", agent["mean/terminated"], 0.5)
	near("std/terminated", agent["std/terminated"], math.Sqrt(0.5))
	near("mean/output_tokens", agent["mean/output_tokens"], 15)
	for _, k := range []string{"mean/" + ngTaskIndex, "mean/" + ngRolloutIndex, "mean/cached_tokens", "mean/task"} {
		if _, has := agent[k]; has {
			t.Errorf("agent_metrics has %s", k)
		}
	}
	keys := m["key_metrics"].(map[string]any)
	if len(keys) != 3 || keys["mean/reward"] != 0.5 {
		t.Errorf("key_metrics %v", keys)
	}
	groups := m["group_level_metrics"].([]any)
	if len(groups) != 2 {
		t.Fatalf("groups %v", groups)
	}
	g0, g1 := groups[0].(map[string]any), groups[1].(map[string]any)
	near("task 0 std/reward", g0["std/reward"], math.Sqrt(0.5))
	near("task 0 median/output_tokens", g0["median/output_tokens"], 15)
	if g0[ngTaskIndex] != 0.0 || g0["num_rollouts"] != 2.0 || g0["rollout_infos"].([]any)[0].(map[string]any)["rollout_id"] != "0:0" {
		t.Errorf("task 0: %v", g0)
	}
	near("task 1 std/reward (one rollout)", g1["std/reward"], 0)
	if _, has := g1["mean/terminated"]; has || g1[ngTaskIndex] != 1.0 {
		t.Errorf("task 1: %v", g1)
	}
	// Nothing to aggregate, and a body without the list.
	if code, m := c.postJSON("aggregate_metrics", `{"verify_responses": []}`); code != 200 || len(m["agent_metrics"].(map[string]any)) != 0 {
		t.Errorf("empty: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("aggregate_metrics", `{}`); code != http.StatusUnprocessableEntity {
		t.Errorf("no verify_responses: HTTP %d %v", code, m)
	}
	// At the root too, where NeMo Gym's agents ask for it.
	c.base = ts.url + "/"
	if code, m := c.postJSON("aggregate_metrics", body); code != 200 || m["key_metrics"].(map[string]any)["mean/reward"] != 0.5 {
		t.Errorf("root: HTTP %d %v", code, m)
	}
}
