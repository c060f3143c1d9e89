package tasks

import (
	"encoding/json"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// TestComposedShapeIsWhatTheUserReasonsAbout: the template cap counts
// tasks by shape. Two composed changes made with the same tool and the
// same arguments are one template only when the user reasons the same
// way (the same condition choosing as many rows, the same branch); when
// the condition or the branch differs they are two tasks. A plain change
// keeps its shape (tool and arguments), so the cap still means "no
// template repeated". At ef02254 the shape ignored the condition and
// capped every composed kind at a twentieth of the set.
func TestComposedShapeIsWhatTheUserReasonsAbout(t *testing.T) {
	call := envpkg.Call{Name: "update_reservation", Arguments: json.RawMessage(`{"reservation_id":"ABC","cabin":"business"}`)}
	task := envpkg.Task{Calls: []envpkg.Call{{Name: "find_user"}, {Name: "list_reservations_of_user"}, call, call},
		Checks: []envpkg.Check{{}, {}}}
	recent := &chain{reason: "[two most recent reservations: created_at=, 2 rows] [set cabin]"}
	pending := &chain{reason: "[pending reservations: status=pending, 2 rows] [set cabin]"}
	again := &chain{reason: recent.reason}
	if shape(task, "update-all", recent) == shape(task, "update-all", pending) {
		t.Errorf("two conditions share one shape: %q", shape(task, "update-all", recent))
	}
	if shape(task, "update-all", recent) != shape(task, "update-all", again) {
		t.Errorf("one condition gives two shapes")
	}
	refused := &chain{reason: recent.reason + " [if none is already: 1 are]"}
	if shape(task, "update-all", recent) == shape(task, "refuse-if-none", refused) {
		t.Errorf("two branches share one shape")
	}
	// A plain change: the tool and its arguments, whoever the row is.
	one := envpkg.Task{Calls: []envpkg.Call{call}, Checks: []envpkg.Check{{}}}
	other := envpkg.Task{Calls: []envpkg.Call{{Name: call.Name, Arguments: json.RawMessage(`{"reservation_id":"XYZ","cabin":"economy"}`)}}, Checks: []envpkg.Check{{}}}
	if shape(one, "update", &chain{}) != shape(other, "update", &chain{}) {
		t.Errorf("two plain changes of one template have two shapes")
	}
}
