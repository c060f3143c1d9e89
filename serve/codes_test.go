package serve

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The error codes are one table (issue 38 item 7: free strings across the
// server, mirrored by hand in the Python client): every errf in the
// server names a Code of the table with one of its statuses, and the
// Python client types every code and status as the table says.
func TestErrorCodesTable(t *testing.T) {
	table := map[Code]CodeInfo{}
	for _, c := range Codes {
		if _, dup := table[c.Code]; dup {
			t.Errorf("%s twice in Codes", c.Code)
		}
		table[c.Code] = c
	}
	consts := map[string]Code{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			// The constants, by name, with their values.
			if vs, ok := n.(*ast.ValueSpec); ok && name == "codes.go" {
				for i, id := range vs.Names {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(id.Name, "Code") {
						consts[id.Name] = Code(strings.Trim(lit.Value, `"`))
					}
				}
			}
			return true
		})
	}
	statusOf := map[string]int{"StatusBadRequest": 400, "StatusUnauthorized": 401, "StatusNotFound": 404,
		"StatusConflict": 409, "StatusGone": 410, "StatusRequestEntityTooLarge": 413, "StatusUnprocessableEntity": 422,
		"StatusTooManyRequests": 429, "StatusInternalServerError": 500, "StatusBadGateway": 502,
		"StatusServiceUnavailable": 503, "StatusInsufficientStorage": 507}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, _ := parser.ParseFile(fset, name, nil, 0)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "errf" || len(call.Args) < 2 {
				return true
			}
			pos := fset.Position(call.Pos())
			id, ok := call.Args[1].(*ast.Ident)
			if !ok {
				t.Errorf("%s: errf's code is not a Code constant", pos)
				return true
			}
			if id.Name == "code" { // stateError passes its own argument on
				return true
			}
			code, ok := consts[id.Name]
			if !ok {
				t.Errorf("%s: errf with %s, not a constant of codes.go", pos, id.Name)
				return true
			}
			calls++
			sel, ok := call.Args[0].(*ast.SelectorExpr)
			if !ok {
				t.Errorf("%s: errf's status is not an http.Status constant", pos)
				return true
			}
			status, ok := statusOf[sel.Sel.Name]
			if !ok {
				t.Errorf("%s: add %s to this test's statuses", pos, sel.Sel.Name)
				return true
			}
			if row, ok := table[code]; !ok || !slices.Contains(row.Statuses, status) {
				t.Errorf("%s: %s with %d, not a status Codes gives it (%v)", pos, code, status, row.Statuses)
			}
			return true
		})
	}
	if calls < 30 {
		t.Errorf("found %d errf calls: the scan lost them", calls)
	}
	for name, c := range consts {
		if _, ok := table[c]; !ok {
			t.Errorf("%s (%s) is not in Codes", name, c)
		}
	}
	if http.StatusGone != 410 {
		t.Fatal("net/http changed")
	}

	// What the Python client makes of each code and status.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("the Python client's half needs python3: %v", err)
	}
	type pair struct {
		Code   Code `json:"code"`
		Status int  `json:"status"`
	}
	var pairs []pair
	for _, c := range Codes {
		for _, s := range c.Statuses {
			pairs = append(pairs, pair{c.Code, s})
		}
	}
	in, _ := json.Marshal(pairs)
	cmd := exec.Command(py, "-c", `import json, sys
from wasmenv_client.errors import error_from, EpisodeLost, EnvironmentFault, AgentFault
out = []
for p in json.load(sys.stdin):
    e = error_from(p["status"], p["code"], "m")
    out.append("lost" if isinstance(e, EpisodeLost) else "environment" if isinstance(e, EnvironmentFault) else "agent" if isinstance(e, AgentFault) else "none")
print(json.dumps(out))`)
	cmd.Dir = filepath.Join("..", "clients", "python")
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var got []Fault
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python said %s", out)
	}
	i := 0
	for _, c := range Codes {
		for _, s := range c.Statuses {
			if got[i] != c.Fault {
				t.Errorf("the Python client types %s (%d) as %s, the table as %s", c.Code, s, got[i], c.Fault)
			}
			i++
		}
	}
}
