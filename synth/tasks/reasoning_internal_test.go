package tasks

import (
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// TestReasoningShapesCountedByTheCap: the shapes that need reasoning
// (pick.go, arith.go, goals.go) are never plain, however few calls they
// take (arithmetic over a list is two), and the template cap counts them
// by what the user reasons about: the same figure over the same rows is
// one template, another figure another.
func TestReasoningShapesCountedByTheCap(t *testing.T) {
	answer := &envpkg.Answer{Value: "1800", Match: "number"}
	two := []envpkg.Call{{Name: "find_employee_by_email"}, {Name: "list_employees_of_manager"}}
	task := envpkg.Task{Calls: two, Answer: answer}
	for _, kind := range []string{"arith-diff", "arith-sum", "goals-answer", "pick-update-all"} {
		if plain(task, kind) || classOf(task, kind) == 0 { // (0: the driver's plain class)
			t.Errorf("%s in two calls counted plain", kind)
		}
	}
	if !plain(task, "ask") {
		t.Errorf("a two-call question of the older kinds is plain")
	}
	a := &chain{reason: "[difference of salary over 5 rows]"}
	b := &chain{reason: "[difference of salary over 5 rows]"}
	other := &chain{reason: "[difference of commission_pct over 5 rows]"}
	if shape(task, "arith-diff", a) != shape(task, "arith-diff", b) {
		t.Errorf("the same figure over as many rows: two templates")
	}
	if shape(task, "arith-diff", a) == shape(task, "arith-diff", other) {
		t.Errorf("another figure: one template")
	}
	if shape(task, "arith-diff", a) == shape(task, "arith-sum", a) {
		t.Errorf("a difference and a total: one template")
	}
}
