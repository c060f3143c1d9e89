package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/gates"
	"github.com/wasmenv/wasmenv/synth/graph"
	"github.com/wasmenv/wasmenv/synth/tasks"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Timing is one stage's wall time.
type Timing struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
}

// Summary is the report of a FromDB run.
type Summary struct {
	Tables      int      `json:"tables"`
	Rows        int64    `json:"rows"`
	InferredFKs []string `json:"inferred_foreign_keys,omitempty"`
	// Skipped names what of the source was left out or changed, and why.
	Skipped       []string       `json:"skipped,omitempty"`
	Tools         int            `json:"tools"`
	ToolsPerTable map[string]int `json:"tools_per_table"`
	ToolsByKind   map[string]int `json:"tools_by_kind"`
	// SchemaBytes is the size of the tools' OpenAI schemas, the JSON the
	// rollout sends with every prompt.
	SchemaBytes int `json:"schema_bytes"`
	// ToolsCovered counts the tools some kept task calls.
	ToolsCovered int         `json:"tools_covered_by_tasks"`
	SmokePassed  int         `json:"smoke_passed"`
	SmokeFailed  []string    `json:"smoke_failed,omitempty"`
	Graph        graph.Stats `json:"graph"`
	Tasks        tasks.Stats `json:"tasks"`
	Chain3Plus   float64     `json:"share_chain_3plus"`
	// Design is the model route's report (--llm), nil without it.
	Design *design.Report `json:"design,omitempty"`
	// Scope is what the served person may change (the domain toolset;
	// nil: no limit).
	Scope   *toolgen.Scope `json:"scope,omitempty"`
	Timings []Timing       `json:"timings"`
	Seconds float64        `json:"seconds"`
}

func (s *Summary) fill(r *Result, st tasks.Stats) {
	s.Tables = len(r.Model.Tables)
	s.Skipped = r.Model.Skipped
	s.Scope = r.Spec.Scope
	s.ToolsPerTable, s.ToolsByKind = map[string]int{}, map[string]int{}
	for _, t := range r.Model.Tables {
		s.Rows += t.Rows
		for _, fk := range t.ForeignKeys {
			if fk.Inferred {
				s.InferredFKs = append(s.InferredFKs, fmt.Sprintf("%s.%s → %s.%s (%s)", t.Name, strings.Join(fk.Columns, ","), fk.RefTable, strings.Join(fk.RefColumns, ","), fk.Reason))
			}
		}
	}
	s.Tools = len(r.Spec.Tools)
	s.SchemaBytes = SchemaBytes(r.Bundle)
	for _, t := range r.Spec.Tools {
		tbl := t.Table
		if t.Kind == "parent" {
			tbl = t.Parent
		}
		s.ToolsPerTable[tbl]++
		s.ToolsByKind[string(t.Kind)]++
	}
	used := map[string]bool{}
	for _, t := range r.Tasks {
		for _, c := range t.Calls {
			used[c.Name] = true
		}
	}
	s.ToolsCovered = len(used)
	for _, sm := range r.Smoke {
		if sm.Passed {
			s.SmokePassed++
		}
	}
	s.Graph = r.Graph.Stats()
	s.Tasks = st
	n3 := 0
	for n, c := range st.ChainHist {
		if n >= 3 {
			n3 += c
		}
	}
	if st.Kept > 0 {
		s.Chain3Plus = float64(n3) / float64(st.Kept)
	}
}

// JSON renders the summary.
func (s *Summary) JSON() []byte {
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, '\n')
}

// Print writes the summary for a person.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "database: %d tables, %d rows, %d inferred references\n", s.Tables, s.Rows, len(s.InferredFKs))
	for _, fk := range s.InferredFKs {
		fmt.Fprintf(w, "  inferred: %s\n", fk)
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "  skipped: %s\n", sk)
	}
	kinds := sortedKeys(s.ToolsByKind)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.ToolsByKind[k]))
	}
	fmt.Fprintf(w, "tools: %d (%s); smoke tests passed %d/%d; %d used by the tasks\n", s.Tools, strings.Join(parts, ", "), s.SmokePassed, s.Tools, s.ToolsCovered)
	fmt.Fprintf(w, "graph: %d independent tools, %d strong and %d weak edges, %d external and %d internal parameters\n",
		s.Graph.Independent, s.Graph.Strong, s.Graph.Weak, s.Graph.External, s.Graph.Internal)
	t := s.Tasks
	fmt.Fprintf(w, "tasks: kept %d (%d read, %d write) of %d attempts; %d dead ends\n", t.Kept, t.Reads, t.Writes, t.Attempts, t.DeadEnds)
	fmt.Fprintf(w, "tasks: %d plain (one row in at most three calls), %d plain candidates left out, %d repeats of a kept template\n", t.Plain, t.PlainSkipped, t.Repeats)
	if t.Short != "" {
		fmt.Fprintf(w, "tasks: short of %d: %s\n", t.Wanted, t.Short)
	}
	var hist []string
	lens := make([]int, 0, len(t.ChainHist))
	for n := range t.ChainHist {
		lens = append(lens, n)
	}
	sort.Ints(lens)
	for _, n := range lens {
		hist = append(hist, fmt.Sprintf("%d calls: %d", n, t.ChainHist[n]))
	}
	fmt.Fprintf(w, "  chain lengths: %s (%.0f%% with 3+ calls)\n", strings.Join(hist, ", "), 100*s.Chain3Plus)
	var kk []string
	for _, k := range sortedKeys(t.ByKind) {
		kk = append(kk, fmt.Sprintf("%s %d", k, t.ByKind[k]))
	}
	fmt.Fprintf(w, "  final steps: %s\n", strings.Join(kk, ", "))
	var gg []string
	for _, g := range gates.All {
		gg = append(gg, fmt.Sprintf("%s %d", g, t.Gates.Dropped[g]))
	}
	fmt.Fprintf(w, "gates: checked %d, kept %d; dropped: %s\n", t.Gates.Checked, t.Gates.Kept, strings.Join(gg, ", "))
	for _, g := range gates.All {
		if e, ok := t.Gates.Examples[g]; ok {
			fmt.Fprintf(w, "  e.g. %s: %s\n", g, e)
		}
	}
	if d := s.Design; d != nil {
		fmt.Fprintf(w, "design (%s): %d answers (%d repair prompts); actions designed %d, kept %d, dropped %d\n",
			d.Model, d.Answers, len(d.Problems), d.Designed, len(d.Kept), len(d.Dropped))
		for _, x := range d.Dropped {
			fmt.Fprintf(w, "  dropped %s: %s\n", x.Name, x.Reason)
		}
		fmt.Fprintf(w, "wording: %d prompts, %d instructions sent, %d rewrites kept, %d kept the procedural wording\n",
			d.Wording.Prompts, d.Wording.Sent, d.Wording.Kept, d.Wording.Failed)
	}
	var tt []string
	for _, x := range s.Timings {
		tt = append(tt, fmt.Sprintf("%s %.1fs", x.Stage, x.Seconds))
	}
	fmt.Fprintf(w, "time: %.1fs (%s)\n", s.Seconds, strings.Join(tt, ", "))
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SchemaBytes is the size of a bundle's tools as the rollout sends them
// (envpkg.OpenAIToolsFor, JSON).
func SchemaBytes(b *envpkg.Bundle) int {
	if b == nil {
		return 0
	}
	data, err := json.Marshal(envpkg.OpenAIToolsFor(b.Manifest.Tools))
	if err != nil {
		return 0
	}
	return len(data)
}
