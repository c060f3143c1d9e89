package rl

import "math"

// Advantages returns GRPO's group-relative advantages: rᵢ − mean(r), and,
// with normalize, divided by the group's sample standard deviation (+1e-6).
// When every reward is equal the advantages are all exactly 0 (the group
// carries no learning signal; no division is done).
func Advantages(rewards []float64, normalize bool) []float64 {
	n := len(rewards)
	adv := make([]float64, n)
	if n == 0 || allEqual(rewards) {
		return adv
	}
	var mean float64
	for _, r := range rewards {
		mean += r
	}
	mean /= float64(n)
	var ss float64
	for i, r := range rewards {
		adv[i] = r - mean
		ss += adv[i] * adv[i]
	}
	if normalize && n > 1 {
		std := math.Sqrt(ss / float64(n-1))
		for i := range adv {
			adv[i] /= std + 1e-6
		}
	}
	return adv
}

func allEqual(rs []float64) bool {
	for _, r := range rs[1:] {
		if r != rs[0] {
			return false
		}
	}
	return true
}

// assignAdvantages sets each rollout's advantage and reports whether the
// group is to be dropped (dropEqual and no reward differs: DAPO's dynamic
// sampling filter). Rollouts with an environment error are left out of the
// baseline and get advantage 0: the failure was not the agent's, and
// trainers drop them (rl/learner does), so a 0 reward they carry must not
// move the other rollouts' advantages.
func assignAdvantages(rs []Rollout, normalize, dropEqual bool) bool {
	var rewards []float64
	var kept []int
	for i := range rs {
		rs[i].Advantage = 0
		if !rs[i].EnvError {
			rewards = append(rewards, rs[i].Reward)
			kept = append(kept, i)
		}
	}
	if dropEqual && (len(rewards) == 0 || allEqual(rewards)) {
		return true
	}
	for j, a := range Advantages(rewards, normalize) {
		rs[kept[j]].Advantage = a
	}
	return false
}
