package rl

// SplitWindows splits a rollout into one sample per assistant turn, as AWM
// does for long trajectories: sample t keeps the leading messages (system
// prompt and the opening user message), the w most recent turns before
// turn t (a turn is an assistant message with the tool results and user
// reply that follow it) and ends with turn t's assistant message. Samples
// share the rollout's reward, advantage and group; each keeps only its own
// turn's token data. A rollout with no assistant turn is returned as is.
func SplitWindows(r *Rollout, w int) []Rollout {
	var starts []int // index of each assistant message
	for i, m := range r.Messages {
		if m.Role == RoleAssistant {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return []Rollout{*r}
	}
	prefix := r.Messages[:starts[0]]
	out := make([]Rollout, len(starts))
	for t, at := range starts {
		from := starts[max(0, t-w)]
		msgs := make([]Message, 0, len(prefix)+at-from+1)
		msgs = append(msgs, prefix...)
		msgs = append(msgs, r.Messages[from:at+1]...)
		s := *r
		s.Messages = msgs
		s.Window = &Window{Turn: t, Size: w}
		s.TurnTokens = nil
		for _, tt := range r.TurnTokens {
			if tt.Message == at {
				tt.Message = len(msgs) - 1
				s.TurnTokens = []TurnTokens{tt}
			}
		}
		out[t] = s
	}
	return out
}
