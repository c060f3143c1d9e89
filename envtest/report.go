package envtest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report is the outcome of checking one bundle.
type Report struct {
	Env   string       `json:"env"`
	Tasks []TaskResult `json:"tasks"`
}

// TaskResult is one task's outcome. Rewards are -1 when not measured
// (Static measures none).
type TaskResult struct {
	ID           string    `json:"id"`
	Calls        int       `json:"calls"`
	GroundTruth  float64   `json:"ground_truth"`  // reward of the replayed ground truth
	Empty        float64   `json:"empty"`         // reward of the empty episode
	ChangesState bool      `json:"changes_state"` // the ground truth leaves a non-empty diff
	Problems     []Problem `json:"problems"`      // each one fails the task
	Notes        []string  `json:"notes"`         // worth a look, but not a failure
}

// Problem is one reason a task fails.
type Problem struct {
	Call int    `json:"call,omitempty"` // the ground-truth call at fault (1-based), 0 for the task as a whole
	Msg  string `json:"message"`
}

func (p Problem) String() string { return p.Msg }

func (t *TaskResult) fail(format string, args ...any) { t.failCall(0, format, args...) }

func (t *TaskResult) failCall(call int, format string, args ...any) {
	t.Problems = append(t.Problems, Problem{Call: call, Msg: fmt.Sprintf(format, args...)})
}

func (t *TaskResult) note(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// OK reports whether the task has no problem.
func (t *TaskResult) OK() bool { return len(t.Problems) == 0 }

// Failed counts the tasks with a problem.
func (r *Report) Failed() int {
	n := 0
	for i := range r.Tasks {
		if !r.Tasks[i].OK() {
			n++
		}
	}
	return n
}

// Err is nil when every task passed, else one error listing the problems
// as "task ID: problem" lines.
func (r *Report) Err() error {
	var lines []string
	for _, t := range r.Tasks {
		for _, p := range t.Problems {
			lines = append(lines, "task "+t.ID+": "+p.Msg)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d tasks fail:\n%s", r.Failed(), len(r.Tasks), strings.Join(lines, "\n"))
}

// WriteTable prints one row per task, then every problem and note, then a
// summary line starting with "ok" or "FAIL".
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tCALLS\tGROUND TRUTH\tEMPTY\tCHANGES STATE\tRESULT")
	for _, t := range r.Tasks {
		result := "ok"
		if !t.OK() {
			result = "FAIL"
		}
		changes := "no"
		if t.ChangesState {
			changes = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", t.ID, t.Calls, reward(t.GroundTruth), reward(t.Empty), changes, result)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range r.Tasks {
		for _, p := range t.Problems {
			fmt.Fprintf(w, "FAIL %s: %s\n", t.ID, p.Msg)
		}
		for _, n := range t.Notes {
			fmt.Fprintf(w, "note %s: %s\n", t.ID, n)
		}
	}
	if n := r.Failed(); n > 0 {
		_, err := fmt.Fprintf(w, "FAIL %s: %d of %d tasks fail\n", r.Env, n, len(r.Tasks))
		return err
	}
	_, err := fmt.Fprintf(w, "ok %s: %d tasks\n", r.Env, len(r.Tasks))
	return err
}

func reward(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}
