package rl

// AWM is Agent World Model's reward: −1 for a rollout with a format error,
// 1.0 when the task is completed (every check passes), 0.1 when it is
// partially completed (some checks pass that are not guards, and no guard
// fails), else 0.
type AWM struct{}

func (AWM) Name() string { return "awm" }

func (AWM) Score(in RewardInput) (float64, map[string]float64) {
	switch {
	case in.FormatErrors > 0:
		return -1, nil
	case in.Score.Total > 0 && in.Score.AllPassed:
		return 1, nil
	case fraction(in.Score) > 0: // a passing guard alone is no progress
		return 0.1, nil
	}
	return 0, nil
}
