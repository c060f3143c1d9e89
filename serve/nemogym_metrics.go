package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
)

// POST aggregate_metrics: NeMo Gym's rollout collection asks every agent
// for it once the rollouts are in, and simple_agent and gymnasium_agent
// ask their resources server; without it `ng_collect_rollouts` fails at
// its end. The answer is what SimpleResourcesServer's default gives
// (nemo_gym/reward_profile.py compute_aggregate_metrics, without
// histograms): for every numeric field of the verify responses (booleans
// as 0/1, and response.usage's numbers), mean, max, min, median and the
// sample std, per task (_ng_task_index) and over all; key_metrics are the
// mean/* of the latter.

const (
	ngTaskIndex    = "_ng_task_index"
	ngRolloutIndex = "_ng_rollout_index"
)

func (s *Server) ngAggregateMetrics(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.ngEnv(w, r); !ok {
		return
	}
	body, ok := s.ngBody(w, r)
	if !ok {
		return
	}
	raw, has := body["verify_responses"]
	if !has {
		ngValidation(w, "missing", []any{"body", "verify_responses"}, "Field required", body)
		return
	}
	var vrs []map[string]any
	if err := json.Unmarshal(raw, &vrs); err != nil || vrs == nil {
		ngValidation(w, "list_type", []any{"body", "verify_responses"}, "Input should be a valid list of objects", raw)
		return
	}
	writeJSON(w, http.StatusOK, aggregateMetrics(vrs))
}

// rolloutNumbers is one verify response's numeric fields.
func rolloutNumbers(vr map[string]any) map[string]float64 {
	out := map[string]float64{}
	add := func(m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case bool:
				out[k] = 0
				if v {
					out[k] = 1
				}
			case float64:
				out[k] = v
			}
		}
	}
	if resp, ok := vr["response"].(map[string]any); ok {
		if usage, ok := resp["usage"].(map[string]any); ok {
			add(usage)
		}
	}
	add(vr) // the response's own fields over usage's, as result | usage reads
	return out
}

func aggregateMetrics(vrs []map[string]any) map[string]any {
	groups := []map[string]any{}
	agent := map[string]any{}
	keys := map[string]any{}
	if len(vrs) > 0 {
		byTask := map[int][]map[string]float64{}
		var all []map[string]float64
		infos := map[int][]map[string]any{}
		for _, vr := range vrs {
			nums := rolloutNumbers(vr)
			task, rollout := int(nums[ngTaskIndex]), int(nums[ngRolloutIndex])
			info := map[string]any{"rollout_id": fmt.Sprintf("%d:%d", task, rollout)}
			for k, v := range nums {
				info[k] = v
			}
			info[ngTaskIndex], info[ngRolloutIndex] = task, rollout
			infos[task] = append(infos[task], info)
			delete(nums, ngRolloutIndex)
			byTask[task] = append(byTask[task], nums)
			agentNums := make(map[string]float64, len(nums))
			for k, v := range nums {
				if k != ngTaskIndex {
					agentNums[k] = v
				}
			}
			all = append(all, agentNums)
		}
		tasks := make([]int, 0, len(byTask))
		for t := range byTask {
			tasks = append(tasks, t)
		}
		sort.Ints(tasks)
		for _, t := range tasks {
			rows := byTask[t]
			for _, row := range rows {
				delete(row, ngTaskIndex)
			}
			g := describe(rows)
			slices.SortFunc(infos[t], func(a, b map[string]any) int { return a[ngRolloutIndex].(int) - b[ngRolloutIndex].(int) })
			g[ngTaskIndex] = t
			g["sample"] = map[string]any{"agent_ref": map[string]any{"name": "agent"}}
			g["num_rollouts"], g["expected_num_rollouts"], g["missing_num_rollouts"] = len(rows), len(rows), 0
			g["reward_profile_completion_pct"] = 100.0
			g["rollout_infos"] = infos[t]
			groups = append(groups, g)
		}
		agent = describe(all)
		for k, v := range agent {
			if len(k) > 5 && k[:5] == "mean/" {
				keys[k] = v
			}
		}
	}
	return map[string]any{"group_level_metrics": groups, "agent_metrics": agent, "key_metrics": keys}
}

// describe is RewardProfiler.describe_dataframe over rows (a field missing
// from a row is pandas' NaN, left out of that field's statistics): keys
// "stat/field"; a statistic without a value is left out, except that when
// no field has a std (one row), the std of every field that no row lacks
// is 0.
func describe(rows []map[string]float64) map[string]any {
	cols := map[string][]float64{}
	for _, row := range rows {
		for k, v := range row {
			cols[k] = append(cols[k], v)
		}
	}
	out := map[string]any{}
	anyStd := false
	for k, vs := range cols {
		sorted := slices.Sorted(slices.Values(vs))
		n := float64(len(vs))
		var sum float64
		for _, v := range vs {
			sum += v
		}
		mean := sum / n
		median := sorted[len(sorted)/2]
		if len(sorted)%2 == 0 {
			median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
		}
		out["mean/"+k], out["max/"+k], out["min/"+k], out["median/"+k] = mean, sorted[len(sorted)-1], sorted[0], median
		if len(vs) > 1 {
			var ss float64
			for _, v := range vs {
				ss += (v - mean) * (v - mean)
			}
			out["std/"+k] = math.Sqrt(ss / (n - 1))
			anyStd = true
		}
	}
	if !anyStd {
		for k, vs := range cols {
			if len(vs) == len(rows) {
				out["std/"+k] = 0.0
			}
		}
	}
	return out
}
