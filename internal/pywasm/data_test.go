package pywasm_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
)

// Tools written the τ-bench way, against wasmenv.data (a dict of
// collections of JSON records), read and write the episode's database:
// a changed record is written back as json.dumps text, an unchanged one is
// not written, and nothing is kept from one call or episode to the next.
func TestPythonDocumentState(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"env.yaml":   "name: pydocs\nversion: 1.0.0\ndescription: document state\n",
		"schema.sql": "CREATE TABLE orders (id TEXT PRIMARY KEY, data TEXT NOT NULL);\n",
		"seed.sql": `INSERT INTO orders VALUES ('#W1', '{"id": "#W1", "status": "pending", "items": [{"name": "lamp", "price": 30.5}]}'),
  ('#W2', '{"id": "#W2", "status": "delivered", "items": []}');` + "\n",
		"tools/orders.py": `
from wasmenv import data, ToolError


def get_order_details(order_id: str) -> str:
    """Returns an order.

    Args:
        order_id: The order id, such as '#W1'.
    """
    if order_id not in data["orders"]:
        raise ToolError("Order not found")
    return str(data["orders"][order_id]["status"])


def cancel_pending_order(order_id: str, reason: str) -> dict:
    """Cancels a pending order.

    Args:
        order_id: The order id.
        reason: Why.
    """
    order = data["orders"].get(order_id)
    if order is None:
        raise ToolError("Order not found")
    if order["status"] != "pending":
        raise ToolError("Non-pending order cannot be cancelled")
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    return order


def add_order(order_id: str) -> int:
    """Adds an empty order and counts the orders.

    Args:
        order_id: The new id.
    """
    data["orders"][order_id] = {"id": order_id, "status": "pending", "items": []}
    return len(data["orders"])


def fail_after_write(order_id: str) -> str:
    """Changes a record, then fails.

    Args:
        order_id: The order id.
    """
    data["orders"][order_id]["status"] = "lost"
    raise ToolError("boom")


def items_view(order_id: str) -> list:
    """Adds an order, then reads the items twice and the first pending one.

    Args:
        order_id: The new id.
    """
    orders = data["orders"]
    orders[order_id] = {"id": order_id, "status": "new", "items": []}
    view = orders.items()
    first = [(k, o["status"]) for k, o in view]
    same = all(a is b for (_, a), (_, b) in zip(view, list(view)))
    pending = next(k for k, o in orders.items() if o["status"] == "pending")
    return [len(view), first, same, pending, dict(view)[order_id]["status"]]


def statuses() -> list[str]:
    """Every order's status, in storage order."""
    return [o["status"] for o in data["orders"].values()]
`,
	}
	os.Mkdir(filepath.Join(dir, "tools"), 0o755)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := load(t, b)
	ep := episode(t, e, "")
	before, err := ep.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, ep, "get_order_details", `{"order_id":"#W1"}`); r.Content != "pending" {
		t.Fatalf("read: %+v", r)
	}
	if h, _ := ep.StateHash(); h != before {
		t.Errorf("a read changed the state hash")
	}
	if r := call(t, ep, "fail_after_write", `{"order_id":"#W1"}`); !r.IsError {
		t.Fatalf("fail_after_write: %+v", r)
	}
	if r := call(t, ep, "statuses", `{}`); r.Content != `["pending", "delivered"]` {
		t.Errorf("a failed call's change was kept: %s", r.Content)
	}
	r := call(t, ep, "cancel_pending_order", `{"order_id":"#W1","reason":"no longer needed"}`)
	if r.IsError || !strings.Contains(r.Content, `"status": "cancelled"`) {
		t.Fatalf("cancel: %+v", r)
	}
	if r := call(t, ep, "cancel_pending_order", `{"order_id":"#W2","reason":"x"}`); r.Content != "Error: Non-pending order cannot be cancelled" {
		t.Errorf("cancel delivered: %+v", r)
	}
	if r := call(t, ep, "add_order", `{"order_id":"#W3"}`); r.Content != "3" {
		t.Errorf("add: %+v", r)
	}
	if r := call(t, ep, "statuses", `{}`); r.Content != `["cancelled", "delivered", "pending"]` {
		t.Errorf("statuses: %s", r.Content)
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	diff := toJSON(t, d)
	if !strings.Contains(diff, "no longer needed") || strings.Contains(diff, "#W2") {
		t.Errorf("diff %s: want #W1 changed, #W3 added, #W2 untouched", diff)
	}
	// items() is a view: its length, iterated again (the same records), a
	// search that stops early, the records this call added at the end.
	if r := call(t, ep, "items_view", `{"order_id":"#W4"}`); r.Content != `[4, [["#W1", "cancelled"], ["#W2", "delivered"], ["#W3", "pending"], ["#W4", "new"]], true, "#W3", "new"]` {
		t.Errorf("items_view: %+v", r)
	}
	other := episode(t, e, "")
	if r := call(t, other, "statuses", `{}`); r.Content != `["pending", "delivered"]` {
		t.Errorf("another episode: %s", r.Content)
	}
}

func toJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
