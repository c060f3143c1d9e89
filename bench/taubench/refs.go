package taubench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// Call is one tool call of a reference episode.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// StateDiff is collection → key → record (null when removed).
type StateDiff map[string]map[string]json.RawMessage

// RefEpisode is a line of envs/taubench-*/testdata/*_ref.jsonl, computed
// with τ-bench's Python tools. It is the one reference-episode type: the
// benchmark (this package), the ports' test harness (internal/taubenchtest)
// and the ports' task generators (envs/taubench-*/gen) all read it.
type RefEpisode struct {
	ID          string `json:"id"`
	UserID      string `json:"user_id"`
	Instruction string `json:"instruction"`
	// ExpectedOutputs are strings the agent's answer must contain (τ-bench's
	// output check), when the task has any.
	ExpectedOutputs []string `json:"expected_outputs"`
	Calls           []Call   `json:"calls"`
	// Outputs are the calls' outputs: a string, or nil where τ-bench's tool
	// returned None.
	Outputs   []*string `json:"outputs"`
	StateDiff StateDiff `json:"state_diff"`
}

// Output is the content of call i's output as `wasmenv replay` writes it:
// the string, or "null" where τ-bench's tool returned None.
func (ep *RefEpisode) Output(i int) string {
	if ep.Outputs[i] == nil {
		return "null"
	}
	return *ep.Outputs[i]
}

// RefFiles are the reference files under the environment directory:
// testdata/test_ref.jsonl, then testdata/dev_ref.jsonl where there is one
// (τ-bench's airline domain has no dev split).
func RefFiles(envDir string) []string {
	files := []string{filepath.Join(envDir, "testdata", "test_ref.jsonl")}
	if dev := filepath.Join(envDir, "testdata", "dev_ref.jsonl"); fileExists(dev) {
		files = append(files, dev)
	}
	return files
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Domain is the τ-bench domain of an environment directory
// (".../taubench-airline" → "airline").
func Domain(envDir string) string {
	return strings.TrimPrefix(filepath.Base(filepath.Clean(envDir)), "taubench-")
}

// LoadRefs reads reference episodes from JSONL files, in order.
func LoadRefs(paths ...string) ([]RefEpisode, error) {
	var eps []RefEpisode
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var ep RefEpisode
			if err := json.Unmarshal(line, &ep); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", p, n, err)
			}
			if len(ep.Outputs) != len(ep.Calls) {
				return nil, fmt.Errorf("%s:%d: %d calls but %d outputs", p, n, len(ep.Calls), len(ep.Outputs))
			}
			eps = append(eps, ep)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return eps, nil
}

// Answer is a final answer that passes the episode's output check: its
// expected outputs, comma-separated; nil when it has none.
func (ep *RefEpisode) Answer() *string {
	if len(ep.ExpectedOutputs) == 0 {
		return nil
	}
	a := strings.Join(ep.ExpectedOutputs, ", ")
	return &a
}

// SameOutput compares two tool outputs as JSON values where both parse as
// JSON (key order and int/float spelling do not matter), else as strings.
func SameOutput(got, want string) bool {
	var x, y any
	if json.Unmarshal([]byte(got), &x) == nil && json.Unmarshal([]byte(want), &y) == nil {
		return reflect.DeepEqual(x, y)
	}
	return got == want
}

// DiffMismatches lists how two state diffs differ; records are compared as
// JSON values and empty collections are ignored.
func DiffMismatches(got, want StateDiff) []string {
	var out []string
	keys := map[[2]string]bool{}
	for _, d := range []StateDiff{got, want} {
		for coll, recs := range d {
			for k := range recs {
				keys[[2]string{coll, k}] = true
			}
		}
	}
	for ck := range keys {
		g, gok := got[ck[0]][ck[1]]
		w, wok := want[ck[0]][ck[1]]
		switch {
		case !gok:
			out = append(out, fmt.Sprintf("missing %s[%s]", ck[0], ck[1]))
		case !wok:
			out = append(out, fmt.Sprintf("extra %s[%s]", ck[0], ck[1]))
		case !SameOutput(string(orNull(g)), string(orNull(w))):
			out = append(out, fmt.Sprintf("different %s[%s]", ck[0], ck[1]))
		}
	}
	sort.Strings(out)
	return out
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Summary is a latency distribution in nanoseconds; the field names match
// baseline.py's JSON.
type Summary struct {
	N      int   `json:"n"`
	P50NS  int64 `json:"p50_ns"`
	P99NS  int64 `json:"p99_ns"`
	MeanNS int64 `json:"mean_ns"`
}

// Summarize computes nearest-rank percentiles (the definition baseline.py uses).
func Summarize(samples []int64) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	s := append([]int64(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum int64
	for _, v := range s {
		sum += v
	}
	return Summary{N: len(s), P50NS: pct(s, 50), P99NS: pct(s, 99), MeanNS: sum / int64(len(s))}
}

func pct(sorted []int64, p int) int64 {
	k := (p*len(sorted) + 99) / 100 // ceil(p·n/100)
	k = max(1, min(len(sorted), k))
	return sorted[k-1]
}

// WriteTools are the tools that change the state (retail's and airline's);
// the others only read.
var WriteTools = map[string]bool{
	"book_reservation":               true,
	"cancel_reservation":             true,
	"send_certificate":               true,
	"update_reservation_baggages":    true,
	"update_reservation_flights":     true,
	"update_reservation_passengers":  true,
	"cancel_pending_order":           true,
	"exchange_delivered_order_items": true,
	"modify_pending_order_address":   true,
	"modify_pending_order_items":     true,
	"modify_pending_order_payment":   true,
	"modify_user_address":            true,
	"return_delivered_order_items":   true,
}
