package gates_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/gates"
)

func TestMain(m *testing.M) { testcache.Main(m) }

const tool = `package tools

import (
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// SetColor sets an item's color.
func SetColor(a SetColorArgs) (any, error) {
	r, err := sdk.Exec("UPDATE items SET color = ? WHERE name = ?", a.Color, a.Name)
	if err != nil {
		return nil, err
	}
	if r.RowsAffected == 0 {
		return nil, fmt.Errorf("no item %s", a.Name)
	}
	return "ok", nil
}

type SetColorArgs struct {
	Name  string ` + "`json:\"name\"`" + `
	Color string ` + "`json:\"color\"`" + `
}

// GetItem returns an item.
func GetItem(a GetItemArgs) (any, error) { return sdk.QueryRow("SELECT * FROM items WHERE name = ?", a.Name) }

type GetItemArgs struct {
	Name string ` + "`json:\"name\"`" + `
}
`

func load(t *testing.T) *runtime.Env {
	dir := filepath.Join(t.TempDir(), "env")
	err := emit.Write(dir, &emit.Env{Name: "gates-test", Schema: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT UNIQUE, color TEXT);",
		Seed: "INSERT INTO items VALUES (1, 'cup', 'red'), (2, 'pen', 'blue');", Tools: map[string][]byte{"items.go": []byte(tool)}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

func call(name string, args any) envpkg.Call {
	b, _ := json.Marshal(args)
	return envpkg.Call{Name: name, Arguments: b}
}

func TestGates(t *testing.T) {
	env := load(t)
	g := gates.NewWith(env, 1, gates.Options{NothingEarnsNothing: true})
	ctx := context.Background()
	write := envpkg.Task{ID: "w", Instruction: "Make the cup green.",
		Calls:  []envpkg.Call{call("set_color", map[string]string{"name": "cup", "color": "green"})},
		Checks: []envpkg.Check{{Name: "green", SQL: "SELECT color = 'green' FROM main.items WHERE name = 'cup'"}}}
	v, err := g.Check(ctx, gates.Candidate{Task: write})
	if err != nil || !v.Writes || v.InitialScore != 0 {
		t.Fatalf("good write task: %v %+v", err, v)
	}
	read := envpkg.Task{ID: "r", Instruction: "What color is the pen?",
		Calls: []envpkg.Call{call("get_item", map[string]string{"name": "pen"})}, Checks: []envpkg.Check{},
		Answer: &envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue", Others: "SELECT color FROM main.items"}}}
	if v, err := g.Check(ctx, gates.Candidate{Task: read, InternalIDs: []string{"2"}}); err != nil || v.Writes {
		t.Fatalf("good read task: %v %+v", err, v)
	}
	for _, c := range []struct {
		gate gates.Gate
		task envpkg.Task
		ids  []string
	}{
		{gates.Duplicate, write, nil},
		{gates.Invalid, envpkg.Task{ID: "x", Instruction: "Do nothing."}, nil},
		{gates.Leak, envpkg.Task{ID: "l2", Instruction: "Make the item (1) pink.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "cup", "color": "pink"})},
			Checks: []envpkg.Check{{SQL: "SELECT color = 'pink' FROM main.items WHERE id = 1"}}}, []string{"1"}},
		{gates.Leak, envpkg.Task{ID: "l", Instruction: "Make item 1 black.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "cup", "color": "black"})},
			Checks: []envpkg.Check{{SQL: "SELECT color = 'black' FROM main.items WHERE id = 1"}}}, []string{"1"}},
		{gates.Replay, envpkg.Task{ID: "f", Instruction: "Paint the mug.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "mug", "color": "black"})},
			Checks: []envpkg.Check{{SQL: "SELECT 1 FROM main.items"}}}, nil},
		{gates.Replay, envpkg.Task{ID: "f2", Instruction: "Paint the cup white.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "cup", "color": "white"})},
			Checks: []envpkg.Check{{SQL: "SELECT color = 'black' FROM main.items WHERE name = 'cup'"}}}, nil},
		{gates.Initial, envpkg.Task{ID: "i", Instruction: "Paint the pen blue.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "pen", "color": "blue"})},
			Checks: []envpkg.Check{{SQL: "SELECT color = 'blue' FROM main.items WHERE name = 'pen'"}}}, nil},
		{gates.Nontrivial, envpkg.Task{ID: "n", Instruction: "Paint the pen pink.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "pen", "color": "pink"})},
			Checks: []envpkg.Check{{SQL: "SELECT 1"}}}, nil},
		{gates.Initial, envpkg.Task{ID: "n2", Instruction: "Paint the pen pink.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "pen", "color": "pink"})},
			Checks: []envpkg.Check{{Name: "pen exists", SQL: "SELECT COUNT(*) = 2 FROM main.items"}}, Answer: &envpkg.Answer{Value: "done", Match: "contains"}}, nil},
		{gates.Nontrivial, envpkg.Task{ID: "a", Instruction: "Is the cup red?", Calls: []envpkg.Call{call("get_item", map[string]string{"name": "cup"})},
			Answer: &envpkg.Answer{Value: "red", Match: "contains"}}, nil},
	} {
		_, err := g.Check(ctx, gates.Candidate{Task: c.task, InternalIDs: c.ids})
		var rej *gates.Rejection
		if !errors.As(err, &rej) || rej.Gate != c.gate || !errors.Is(err, gates.ErrRejected) {
			t.Errorf("task %s: got %v, want gate %s", c.task.ID, err, c.gate)
		}
	}
	n := g.Counts()
	if n.Examples[gates.Leak] == "" {
		t.Error("no example reason for the leak gate")
	}
	// An id inside a longer number is not a leak: "12" in "120 mugs".
	tok := envpkg.Task{ID: "t", Instruction: "Paint the cup in shade 120.", Calls: []envpkg.Call{call("set_color", map[string]string{"name": "cup", "color": "120"})},
		Checks: []envpkg.Check{{SQL: "SELECT color = '120' FROM main.items WHERE name = 'cup'"}}}
	if _, err := g.Check(ctx, gates.Candidate{Task: tok, InternalIDs: []string{"12"}}); err != nil {
		t.Errorf("id inside a longer number taken for a leak: %v", err)
	}
	if n.Checked != 12 || n.Kept != 2 || n.Dropped[gates.Replay] != 2 || n.Dropped[gates.Nontrivial] != 2 || n.Dropped[gates.Initial] != 2 {
		t.Errorf("counts: %+v", n)
	}
	if len(env.Bundle.Tasks) != 0 {
		t.Errorf("gates left %d tasks in the bundle", len(env.Bundle.Tasks))
	}
}
