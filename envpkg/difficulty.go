package envpkg

// Difficulty is an estimate of how hard a task is, from how it was made
// (synth fills it in; hand-written tasks may leave it out). Trainers can
// order or filter tasks by it.
type Difficulty struct {
	Calls       int  `json:"calls"`                 // ground-truth calls
	IDs         int  `json:"ids"`                   // internal ids the agent must carry from one call's result into another call
	Distractors int  `json:"distractors"`           // rows the agent could take for the right one, where it chooses
	Writes      int  `json:"writes"`                // changes asked for
	Conditional bool `json:"conditional,omitempty"` // what to do depends on a value the agent must look up
	// Level sums the above into 1 (one lookup) to 5.
	Level int `json:"level"`
	// PassRate is measured, not estimated: the share of the retention
	// gate's attempts (synth/retain) in which an agent solved the task, out
	// of Attempts. Hard marks a task no attempt solved that the examiner
	// found the agent's fault, not the environment's.
	PassRate *float64 `json:"pass_rate,omitempty"`
	Attempts int      `json:"attempts,omitempty"`
	Hard     bool     `json:"hard,omitempty"`
}
