package graph

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Strength of an edge.
type Strength string

// Edge strengths.
const (
	Strong Strength = "strong" // key or reference match
	Weak   Strength = "weak"   // same name and type
)

// Param is a parameter with its class.
type Param struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
	External bool   `json:"external"`
	Ref      string `json:"ref,omitempty"`
}

// Node is one tool.
type Node struct {
	Tool   string       `json:"tool"`
	Kind   toolgen.Kind `json:"kind"`
	Table  string       `json:"table"`
	Writes bool         `json:"writes,omitempty"`
	// Independent: every required parameter is external.
	Independent bool     `json:"independent"`
	Outputs     []string `json:"outputs"` // the fields of the rows it returns
	Params      []Param  `json:"params"`
}

// Edge feeds output field Field of From into parameter Param of To.
type Edge struct {
	From     string   `json:"from"`
	Field    string   `json:"field"`
	To       string   `json:"to"`
	Param    string   `json:"param"`
	Strength Strength `json:"strength"`
}

// Graph is the tool dependency graph.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`

	out map[string][]int // edges by From
	idx map[string]int   // nodes by tool
}

// Build derives the graph of a toolset.
func Build(spec *toolgen.Spec) *Graph {
	g := &Graph{}
	m := spec.Model
	for _, t := range spec.Tools {
		n := Node{Tool: t.Name, Kind: t.Kind, Table: t.Table, Writes: t.Kind.Writes(), Independent: true}
		if tbl := m.Table(t.Table); tbl != nil && t.Kind != toolgen.Delete {
			for _, c := range tbl.Columns {
				n.Outputs = append(n.Outputs, c.Name)
			}
		}
		for _, p := range t.Params {
			n.Params = append(n.Params, Param{Name: p.Name, Type: p.Type, Required: p.Required, External: p.External, Ref: p.Ref})
			if p.Required && !p.External {
				n.Independent = false
			}
		}
		g.Nodes = append(g.Nodes, n)
	}
	for _, from := range spec.Tools {
		tbl := m.Table(from.Table)
		if tbl == nil || from.Kind == toolgen.Delete {
			continue
		}
		for _, to := range spec.Tools {
			if to == from {
				continue
			}
			for _, p := range to.Params {
				if p.Op != toolgen.OpKey && p.Op != toolgen.OpEq && p.Op != toolgen.OpSet {
					continue
				}
				for _, c := range tbl.Columns {
					s := strength(c.Name, tbl, p)
					if s == "" {
						continue
					}
					g.Edges = append(g.Edges, Edge{From: from.Name, Field: c.Name, To: to.Name, Param: p.Name, Strength: s})
				}
			}
		}
	}
	g.index()
	return g
}

// strength of feeding column col of table t into parameter p.
func strength(col string, t *dbmodel.Table, p toolgen.Param) Strength {
	if p.Ref != "" {
		// The parameter wants the key of p.Ref: the key column of that
		// table's rows, or a column referring to it.
		if p.Ref == t.Name && t.IsKey(col) && len(t.PrimaryKey) == 1 {
			return Strong
		}
		if t.ForeignKeyRef(col) == p.Ref {
			return Strong
		}
		return ""
	}
	if p.Column == col && p.Table != t.Name {
		return Weak
	}
	return ""
}

func (g *Graph) index() {
	g.out = map[string][]int{}
	g.idx = map[string]int{}
	for i, n := range g.Nodes {
		g.idx[n.Tool] = i
	}
	for i, e := range g.Edges {
		g.out[e.From] = append(g.out[e.From], i)
	}
}

// Out returns the edges leaving tool.
func (g *Graph) Out(tool string) []Edge {
	var out []Edge
	for _, i := range g.out[tool] {
		out = append(out, g.Edges[i])
	}
	return out
}

// Node returns the node of tool, or nil.
func (g *Graph) Node(tool string) *Node {
	if i, ok := g.idx[tool]; ok {
		return &g.Nodes[i]
	}
	return nil
}

// Stats counts nodes and edges by class.
type Stats struct {
	Tools       int `json:"tools"`
	Independent int `json:"independent"`
	Strong      int `json:"strong_edges"`
	Weak        int `json:"weak_edges"`
	External    int `json:"external_params"`
	Internal    int `json:"internal_params"`
}

// Stats summarizes the graph.
func (g *Graph) Stats() Stats {
	s := Stats{Tools: len(g.Nodes)}
	for _, n := range g.Nodes {
		if n.Independent {
			s.Independent++
		}
		for _, p := range n.Params {
			if p.External {
				s.External++
			} else {
				s.Internal++
			}
		}
	}
	for _, e := range g.Edges {
		if e.Strength == Strong {
			s.Strong++
		} else {
			s.Weak++
		}
	}
	return s
}

// JSON renders the graph.
func (g *Graph) JSON() ([]byte, error) { return json.MarshalIndent(g, "", "  ") }

// DOT renders the graph for Graphviz: independent tools as boxes, writes in
// red, strong edges solid, weak edges dashed (weak edges only with weak).
func (g *Graph) DOT(weak bool) string {
	var b strings.Builder
	b.WriteString("digraph tools {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n")
	for _, n := range g.Nodes {
		attrs := []string{"shape=ellipse"}
		if n.Independent {
			attrs[0] = "shape=box"
		}
		if n.Writes {
			attrs = append(attrs, "color=red")
		}
		fmt.Fprintf(&b, "  %q [%s];\n", n.Tool, strings.Join(attrs, ", "))
	}
	type key struct{ from, to string }
	labels := map[key][]string{}
	style := map[key]Strength{}
	for _, e := range g.Edges {
		if e.Strength == Weak && !weak {
			continue
		}
		k := key{e.From, e.To}
		labels[k] = append(labels[k], e.Field+"→"+e.Param)
		if style[k] != Strong {
			style[k] = e.Strength
		}
	}
	keys := make([]key, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].from != keys[j].from {
			return keys[i].from < keys[j].from
		}
		return keys[i].to < keys[j].to
	})
	for _, k := range keys {
		st := ""
		if style[k] == Weak {
			st = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %q -> %q [label=%q%s];\n", k.from, k.to, strings.Join(labels[k], ", "), st)
	}
	b.WriteString("}\n")
	return b.String()
}
