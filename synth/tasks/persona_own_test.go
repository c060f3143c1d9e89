package tasks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// corpusTasks is the procedural route's set on a tuning database, as
// make-envs.sh makes it (220 tasks, seed 1, the domain toolset).
func corpusTasks(t *testing.T, name string) []envpkg.Task {
	t.Helper()
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, name), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 220, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tasks
}

// own counts a set's tasks a person asks for themselves (a persona) whose
// id holds kind, and that change at least rows rows.
func own(tasks []envpkg.Task, kind string, rows int) int {
	n := 0
	for _, task := range tasks {
		if task.Persona != "" && strings.Contains(task.ID, kind) && changesOf(task) >= rows {
			n++
		}
	}
	return n
}

func changesOf(t envpkg.Task) int {
	n := 0
	for _, c := range t.Checks {
		if !c.Guard {
			n++
		}
	}
	return n
}

// TestPersonaPathDrawsOnOwnActions: the persona path draws on every action
// kind, not only on the edit tool and the status actions of a person's
// rows. On the tuning hr a manager (an employee others report to, a
// self-reference) hires someone within the job's salary range, is
// refused out of it (a policy task: the answer is the most it may be),
// and changes several of their reports at once. On the merge of k-depth
// and k-vocab hr's persona path found none of these (4 tasks kept: 3
// refused hires and an edit, none a person's own).
func TestPersonaPathDrawsOnOwnActions(t *testing.T) {
	tasks := corpusTasks(t, "hr")
	hired, refused, reports := own(tasks, "-open-", 1), own(tasks, "-refuse-open-", 0), own(tasks, "-update-all-", 2)
	if hired == 0 || refused == 0 || reports == 0 {
		t.Errorf("a person's own: %d hires, %d refused hires, %d changes of two or more of their reports; want some of each", hired, refused, reports)
	}
	for _, task := range tasks {
		if task.Persona != "" && strings.Contains(task.ID, "-refuse-open-") && (task.Answer == nil || changesOf(task) > 0) {
			t.Errorf("%s: a refused hire must change nothing and answer why: %+v", task.ID, task.Answer)
		}
	}
	t.Logf("%d tasks: %d hires, %d refused, %d changes over reports", len(tasks), hired, refused, reports)
}

// TestPersonaRentsTwo: a customer's own request may open two rows at once
// ("rent the films X and Y for me"), each checked: seven calls (find me,
// each film and its copies, two rentals), which the old default of five
// calls per chain cut (on the merge: no such task kept of 221 built).
func TestPersonaRentsTwo(t *testing.T) {
	tasks := corpusTasks(t, "sakila")
	if n := own(tasks, "-open-two-", 2); n == 0 {
		t.Errorf("no task where a customer rents two films for themselves")
	}
}
