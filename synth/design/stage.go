package design

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
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

	msgs   []chatapi.Message
	m      *dbmodel.Model
	conn   *sqlite3.Conn
	report Report
}

// Report is what the model route did, for the run's summary.
type Report struct {
	Model string `json:"model"`
	// Answers counts the design answers (the first and each repair);
	// Problems are what each repair prompt sent back.
	Answers  int      `json:"answers"`
	Problems []string `json:"repair_prompts,omitempty"`
	// Designed counts the actions of the last answer; Kept names those
	// in the toolset (each passed its succeed-and-refuse check); Dropped
	// the rest, with why.
	Designed int       `json:"designed"`
	Kept     []string  `json:"kept,omitempty"`
	Dropped  []Dropped `json:"dropped,omitempty"`
	Wording  Wording   `json:"wording"`
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
			s.report.Designed = len(a.Actions)
			var p *Plan
			if p, err = Validate(s.m, s.conn, a); err == nil {
				last = p
				for _, d := range p.Dropped {
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

// Settle records the outcome: the plan's actions that passed their
// checks are kept, the others dropped with the smoke stage's reason.
func (s *Stage) Settle(p *Plan, failed []Dropped) {
	s.report.Kept, s.report.Dropped = nil, append([]Dropped(nil), p.Dropped...)
	bad := map[string]bool{}
	for _, f := range failed {
		bad[f.Name] = true
		s.report.Dropped = append(s.report.Dropped, f)
	}
	for _, d := range p.Actions {
		if !bad[d.Name] {
			s.report.Kept = append(s.report.Kept, d.Name)
		}
	}
}
