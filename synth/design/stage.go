package design

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// DefaultRepairs is how many repair prompts a design gets after its
// first answer (validation and smoke failures share them).
const DefaultRepairs = 2

// Stage talks to the model: the design conversation (Propose, Repair) and
// the wording batches (Reword). It is used by one run at a time.
type Stage struct {
	Client *chatapi.Client
	Model  string
	// Repairs bounds the repair prompts (0: DefaultRepairs; below 0:
	// none).
	Repairs int
	// Batch is how many tasks one wording prompt carries (0: 20).
	Batch int
	// Trace, when set, sees each task's wording: the instruction before
	// and after (the same when the rewrite failed) and why it failed.
	Trace func(id, before, after, why string)
	// Serves, when set, is whom the assistant serves in every wording
	// prompt, in place of the design answer's (a run that rewords
	// tasks it did not design for, such as a test of the wording
	// alone, says it here).
	Serves string
	// NoWording, when set, leaves the tasks' procedural wording (Reword
	// sends nothing): a run that needs the design and the tasks only,
	// such as a test of the tasks over a recorded design, whose wording
	// prompts depend on the task generator of the day.
	NoWording bool

	msgs   []chatapi.Message
	m      *dbmodel.Model
	conn   *sqlite3.Conn
	report Report
	// proposed are the actions any answer designed, in order; dropped
	// why each one (or rule) was last left out.
	proposed []string
	dropped  map[string]string
	// targets are the table and column of each action proposed.
	targets map[string]toolgen.Declined
}

// Report is what the model route did, for the run's summary.
type Report struct {
	Model string `json:"model"`
	// Answers counts the design answers (the first and each repair);
	// Problems are what each repair prompt sent back.
	Answers  int      `json:"answers"`
	Problems []string `json:"repair_prompts,omitempty"`
	// Designed counts the actions any answer designed; Kept names those
	// in the toolset (each passed its succeed-and-refuse check); Dropped
	// the rest, with why (validation or the check, the last reason), and
	// DroppedRules the policy rules left without their action.
	Designed     int       `json:"designed"`
	Kept         []string  `json:"kept,omitempty"`
	Dropped      []Dropped `json:"dropped,omitempty"`
	DroppedRules []Dropped `json:"dropped_rules,omitempty"`
	Wording      Wording   `json:"wording"`
}

// Wording counts the instructions sent to be reworded, the rewrites kept,
// and the ones that failed their gate (the procedural wording stayed),
// with the reasons.
type Wording struct {
	Prompts int            `json:"prompts"`
	Sent    int            `json:"sent"`
	Kept    int            `json:"kept"`
	Failed  int            `json:"failed"`
	Reasons map[string]int `json:"reasons,omitempty"`
}

// ErrNoDesign is a design stage with no usable answer after its repairs.
var ErrNoDesign = errors.New("design: the model gave no usable design")

func (s *Stage) repairs() int {
	switch {
	case s.Repairs == 0:
		return DefaultRepairs
	case s.Repairs < 0:
		return 0
	}
	return s.Repairs
}

// Report returns what the stage did so far.
func (s *Stage) Report() *Report {
	r := s.report
	r.Model = s.Model
	return &r
}

// Propose asks for a design of the database conn holds (m is its model),
// validates it, and sends what fails validation back while repairs are
// left. The plan holds the valid actions of the last answer.
func (s *Stage) Propose(ctx context.Context, m *dbmodel.Model, conn *sqlite3.Conn) (*Plan, error) {
	s.m, s.conn = m, conn
	data, err := describe(m, conn)
	if err != nil {
		return nil, err
	}
	s.msgs = []chatapi.Message{{Role: chatapi.RoleSystem, Content: systemPrompt}, {Role: chatapi.RoleUser, Content: designPrompt(data)}}
	return s.ask(ctx)
}

// Repair sends the smoke stage's failures back (action name and what
// happened) and returns the new plan; nil when no repair is left.
func (s *Stage) Repair(ctx context.Context, failed []Dropped) (*Plan, error) {
	if len(s.report.Problems) >= s.repairs() || s.msgs == nil {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("Each action was rendered as a tool and tried in a fresh copy of the database: one call that must succeed and change the row, then one its rule must refuse with nothing changed. These failed:\n")
	for _, f := range failed {
		fmt.Fprintf(&b, "- %s: %s\n", f.Name, f.Reason)
	}
	b.WriteString("\nAnswer the whole design again, as one JSON object in the same form: fix or leave out these actions; keep the ones that passed as they are.")
	s.report.Problems = append(s.report.Problems, b.String())
	s.msgs = append(s.msgs, chatapi.Message{Role: chatapi.RoleUser, Content: b.String()})
	return s.ask(ctx)
}

// ask sends the conversation, validates the answer and repairs what
// validation rejects while repairs are left.
func (s *Stage) ask(ctx context.Context) (*Plan, error) {
	var last *Plan
	for {
		resp, err := s.Client.Chat(ctx, &chatapi.Request{Model: s.Model, Messages: s.msgs, MaxTokens: 4000, Temperature: new(float64)})
		if err != nil {
			return nil, fmt.Errorf("design: %w", err)
		}
		text := resp.Choices[0].Message.Content
		s.report.Answers++
		s.msgs = append(s.msgs, chatapi.Message{Role: chatapi.RoleAssistant, Content: text})
		var problems []string
		a, err := parseAnswer(text)
		if err == nil {
			for _, aa := range a.Actions {
				if !slices.Contains(s.proposed, aa.Name) {
					s.proposed = append(s.proposed, aa.Name)
				}
				if s.targets == nil {
					s.targets = map[string]toolgen.Declined{}
				}
				s.targets[aa.Name] = toolgen.Declined{Table: aa.Table, Column: aa.Column}
			}
			var p *Plan
			if p, err = Validate(s.m, s.conn, a); err == nil {
				s.declineEarlier(p)
				last = p
				for _, d := range p.Dropped {
					s.drop(d)
					problems = append(problems, fmt.Sprintf("- %s: %s", d.Name, d.Reason))
				}
			}
		}
		if err != nil {
			problems = append(problems, "- "+err.Error())
		}
		if len(problems) == 0 || len(s.report.Problems) >= s.repairs() {
			if last == nil {
				return nil, fmt.Errorf("%w: %s", ErrNoDesign, strings.Join(problems, "; "))
			}
			return last, nil
		}
		msg := "The design was checked against the schema and the data. These parts fail:\n" + strings.Join(problems, "\n") +
			"\n\nAnswer the whole design again, as one JSON object in the same form: fix or leave out what fails."
		s.report.Problems = append(s.report.Problems, msg)
		s.msgs = append(s.msgs, chatapi.Message{Role: chatapi.RoleUser, Content: msg})
	}
}

// declineEarlier adds to p.Declined the actions an earlier answer
// designed that p does not keep (the model left them out of its last
// answer), unless a kept action is on the same table and column.
func (s *Stage) declineEarlier(p *Plan) {
	for _, name := range s.proposed {
		d, ok := s.targets[name]
		if !ok || d.Table == "" || d.Column == "" || slices.Contains(p.Declined, d) {
			continue
		}
		if slices.ContainsFunc(p.Actions, func(k toolgen.Designed) bool {
			return k.Name == name || k.Table == d.Table && k.Action.Column == d.Column
		}) {
			continue
		}
		p.Declined = append(p.Declined, d)
	}
}

func (s *Stage) drop(d Dropped) {
	if s.dropped == nil {
		s.dropped = map[string]string{}
	}
	s.dropped[d.Name] = d.Reason
}

// ruleOf prefixes the name of a dropped rule (Validate).
const ruleOf = "rule of "

// Settle records the outcome: the plan's actions that passed their
// checks are kept; every other action any answer designed is dropped
// with its last reason (validation, or the smoke stage's check). p is nil
// when no answer was usable.
func (s *Stage) Settle(p *Plan, failed []Dropped) {
	for _, f := range failed {
		s.drop(f)
	}
	s.report.Kept, s.report.Dropped, s.report.DroppedRules = nil, nil, nil
	if p == nil {
		p = &Plan{} // no usable answer: every action designed is dropped
	}
	for _, d := range p.Actions {
		if !slices.ContainsFunc(failed, func(f Dropped) bool { return f.Name == d.Name }) {
			s.report.Kept = append(s.report.Kept, d.Name)
		}
	}
	for _, name := range s.proposed {
		if !slices.Contains(s.report.Kept, name) {
			why, ok := s.dropped[name]
			if !ok {
				why = "the model left it out of its last answer"
			}
			s.report.Dropped = append(s.report.Dropped, Dropped{name, why})
		}
	}
	for _, d := range p.Dropped {
		if strings.HasPrefix(d.Name, ruleOf) {
			s.report.DroppedRules = append(s.report.DroppedRules, d)
		}
	}
	s.report.Designed = len(s.proposed)
}
