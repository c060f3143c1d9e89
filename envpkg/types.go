package envpkg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// FormatVersion is the bundle format this package reads and writes.
const FormatVersion = 1

// ABIVersion is the host ABI the tool module expects (sdk/wire and the
// wasmenv_* exports and imports). ABI 2 added wire.OpQueryJSON, ABI 3
// wire.OpQueryValues; the host still runs bundles from MinABIVersion on.
const ABIVersion = 3

// MinABIVersion is the oldest tool ABI this wasmenv runs.
const MinABIVersion = 1

// Manifest describes an environment and its tools.
type Manifest struct {
	Format      int    `json:"format"`
	ABI         int    `json:"abi"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Rules       string `json:"rules,omitempty"`
	// Credit is how a task's checks make its reward: CreditPartial ("",
	// the fraction of the checks passed) or CreditAll (1 only when every
	// check passes, 0 otherwise: τ-bench's reward, which its ports keep).
	// runtime.Options.PartialCredit asks for the fraction everywhere.
	Credit      string       `json:"credit,omitempty"`
	Clock       time.Time    `json:"clock"`
	Tools       []Tool       `json:"tools"`
	OpenAITools []OpenAITool `json:"openai_tools"`
	Export      []Collection `json:"export,omitempty"`
	Limits      Limits       `json:"limits"`
	DBBytes     int64        `json:"db_bytes"`
	Toolchain   string       `json:"toolchain"`
	// GuestPatches is the level of the compiler's patches to the guest's Go
	// runtime and fmt (compiler/guestpatch.go) the module was built with;
	// 0: none, so map order and printed addresses can follow what ran
	// before on an instance (bundles built before they existed).
	GuestPatches int `json:"guest_patches,omitempty"`
}

// Tool is one tool in MCP form. Its index in Manifest.Tools is its dispatch
// number inside the module.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// OpenAITool is the same tool in OpenAI function-calling form.
type OpenAITool struct {
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function part of an OpenAITool.
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// OpenAIToolsFor converts MCP tools to OpenAI function tools.
func OpenAIToolsFor(tools []Tool) []OpenAITool {
	out := make([]OpenAITool, len(tools))
	for i, t := range tools {
		out[i] = OpenAITool{Type: "function", Function: OpenAIFunction{
			Name: t.Name, Description: t.Description, Parameters: t.InputSchema,
		}}
	}
	return out
}

// Collection is an export view: a query yielding (key, JSON record) rows.
// {schema} in Query is replaced by main or init.
type Collection struct {
	Name   string   `json:"name"`
	Query  string   `json:"query"`
	Tables []string `json:"tables"`
}

// Limits bound each tool call.
type Limits struct {
	CallTimeoutMS  int64 `json:"call_timeout_ms"`
	MemoryMB       int   `json:"memory_mb"`
	MaxOutputBytes int   `json:"max_output_bytes"`
	// MaxWriteMB bounds how much an episode's database may grow over its
	// initial state (0: the runtime's default, see runtime.Options).
	MaxWriteMB int `json:"max_write_mb,omitempty"`
}

// DefaultLimits are used where env.yaml says nothing.
var DefaultLimits = Limits{CallTimeoutMS: 2000, MemoryMB: 64, MaxOutputBytes: 1 << 20}

// Task is one task: an instruction, an optional initial-state overlay,
// ground-truth calls and the checks that score an episode.
type Task struct {
	ID          string  `json:"id"`
	Instruction string  `json:"instruction"`
	Persona     string  `json:"persona,omitempty"`
	Setup       string  `json:"setup,omitempty"`
	Calls       []Call  `json:"calls"`
	Checks      []Check `json:"checks"`
	Answer      *Answer `json:"answer,omitempty"`
	Reward      string  `json:"reward,omitempty"` // "checks" (default) or "state"
	// Difficulty is an estimate, where the task's maker gave one.
	Difficulty *Difficulty `json:"difficulty,omitempty"`
}

// Call is one tool call.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallArguments is a call's arguments as the runtime takes them: absent
// or null is {}, and a JSON string holding the arguments (OpenAI's
// tool_calls form, "{\"key\": 1}") is unwrapped; anything else is as given.
func CallArguments(a json.RawMessage) []byte {
	a = bytes.TrimSpace(a)
	if len(a) == 0 || string(a) == "null" {
		return []byte("{}")
	}
	if a[0] == '"' {
		var s string
		if json.Unmarshal(a, &s) == nil {
			if t := bytes.TrimSpace([]byte(s)); len(t) > 0 {
				return t
			}
			return []byte("{}")
		}
	}
	return a
}

// Check is a SQL predicate over main (final) and init (initial).
type Check struct {
	Name string `json:"name,omitempty"`
	SQL  string `json:"sql"`
	// Guard marks a check that gates the reward instead of adding to it
	// ("nothing else changed"): when a guard fails the reward is 0, and
	// guards are not counted in the fraction, so doing nothing earns
	// nothing for them.
	Guard bool `json:"guard,omitempty"`
}

// WrittenFunc names the SQL function a check may call for the rows the
// episode wrote: wasmenv_written(table) is the JSON array of the rowids
// written in table since the episode's reset, or NULL when the table must
// be read whole (runtime/written.go).
const WrittenFunc = "wasmenv_written"

// Answer is an expected final answer and how to match it.
type Answer struct {
	Value string `json:"value"`
	Match string `json:"match"` // exact | contains | contains_all | regex | number | json
	// Alone, when set, holds the answer to the value asked for alone: see
	// Alone. A number rule always is (no other number may be asserted).
	Alone *Alone `json:"alone,omitempty"`
}

// Alone makes an answer rule pass only on an answer that asserts the
// expected value and no competing one: "Either 17 or 21 films", a spray
// of numbers, a tool's output pasted whole or "Park, Peacock or Johnson"
// fail where "There are 17 films." passes. Beside the rule's own match
// (whole words for contains: "37815" is not in "378150"), the answer may
// hold no number but those in the rule's match, in Value, or in the
// task's instruction and persona (what the user said), some of the
// answered record's own values (Record), and none of the values Others
// lists outside the match but those the user named ("it is not return
// requested: it is ordered"), unless the expected value is one the user
// named too (then naming another is a hedge between the two).
type Alone struct {
	// Value is the expected value as a right answer says it (as stored):
	// the ground truth's answer (Answer.Reply), whose numbers may be said
	// around the match (the time of a stamp whose date is asked).
	Value string `json:"value"`
	// Others is a read-only query, over main and init like a check, whose
	// first column lists the values of the kind asked for (the same
	// column's other rows); "" for none.
	Others string `json:"others,omitempty"`
	// Record lists the other values of the answered record (at most
	// MaxRecordValues, each at most MaxRecordValueLen bytes): a right
	// answer may name its record by some of them, fewer than half, so
	// the record restated whole is no answer. Where the expected value is
	// a number, a number of the record is said with a word of its column
	// ("day 18 (record 587, plot 2)"; "18 or 2" is a hedge).
	Record []RecordValue `json:"record,omitempty"`
	// Counted lists the rows a count or a sum is over, each by its key
	// column and value: a right answer may name any or all of them ("3:
	// orders 10, 11 and 12"), a number of them said after a word of its
	// column, alone or in a list that follows one. A counted row's key
	// said bare stays a rival ("3 or 11").
	Counted []RecordValue `json:"counted,omitempty"`
}

// RecordValue is a value of the answered record and its column.
type RecordValue struct {
	Column string `json:"column"`
	Value  string `json:"value"`
}

// Bounds on Alone.Record: the answered record's values ride in every
// task file, so a wide table's row is cut to its first values.
const (
	MaxRecordValues   = 32
	MaxRecordValueLen = 120
)

// CheckAlone reports an Alone that cannot apply: on a rule matched as a
// whole (json, contains_all), or without the value a right answer says.
// A nil Answer or Alone is fine.
func (a *Answer) CheckAlone() error {
	if a == nil || a.Alone == nil {
		return nil
	}
	if a.Match == "json" || a.Match == "contains_all" {
		return fmt.Errorf("answer: alone does not apply to match %s", a.Match)
	}
	if strings.TrimSpace(a.Alone.Value) == "" {
		return fmt.Errorf("answer: alone needs the value a right answer says")
	}
	if n := len(a.Alone.Record); n > MaxRecordValues {
		return fmt.Errorf("answer: alone.record holds %d values, at most %d", n, MaxRecordValues)
	}
	for _, v := range a.Alone.Record {
		if len(v.Value) > MaxRecordValueLen || len(v.Column) > MaxRecordValueLen {
			return fmt.Errorf("answer: alone.record value %.20q… of %.20q is over %d bytes", v.Value, v.Column, MaxRecordValueLen)
		}
	}
	return nil
}

// Reply is the answer a right agent gives: Alone.Value where the rule has
// one, else the rule's value ("" for a regex rule without Alone, whose
// value is a pattern).
func (a *Answer) Reply() string {
	switch {
	case a.Alone != nil:
		return a.Alone.Value
	case a.Match == "regex":
		return ""
	}
	return a.Value
}

// Reward kinds.
const (
	RewardChecks = "checks"
	RewardState  = "state"
)

// Credit kinds (Manifest.Credit).
const (
	CreditPartial = "partial"
	CreditAll     = "all"
)

// AnswerMatches lists the valid Answer.Match values.
// contains_all is τ-bench's output check: Value is a JSON array of strings,
// each of which must occur in the answer, ignoring case and the answer's
// commas ("1,786" contains "1786").
var AnswerMatches = []string{"exact", "contains", "contains_all", "regex", "number", "json"}

// Bundle is a whole environment in memory.
type Bundle struct {
	Manifest Manifest
	Module   []byte // the tool module, without wasmenv sections
	DB       []byte // the SQLite database image
	Tasks    []Task

	// Set by Decode and Encode.
	Hash   string // hex xxhash64 of everything before the hash section
	Size   int64  // bytes of the encoded bundle
	DBZstd int64  // bytes of the compressed database section
}

// Task returns the task with the given id.
func (b *Bundle) Task(id string) (*Task, bool) {
	for i := range b.Tasks {
		if b.Tasks[i].ID == id {
			return &b.Tasks[i], true
		}
	}
	return nil, false
}
