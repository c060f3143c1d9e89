package arena

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/internal/chatapi"
)

//go:embed prompts/diagnose.md
var defaultPrompt string

// LLM diagnoses through an OpenAI-compatible chat model. Its answer is
// data: parsed strictly, validated against the report (Diagnosis.Validate),
// and refused with the reason when it does not fit.
type LLM struct {
	Client  *chatapi.Client
	Model   string
	Prompt  string   // template with {{report}}, {{conversations}}, {{max_weak}}; "": the embedded one
	Records []Record // the evaluated rollouts, for the failed conversations
	MaxWeak int      // default 3
	// MaxConversations and MaxConversationBytes bound what of the failed
	// rollouts goes into the prompt; defaults 12 and 6,000.
	MaxConversations     int
	MaxConversationBytes int
}

// Diagnose implements Diagnoser.
func (l *LLM) Diagnose(ctx context.Context, rep *Report) (*Diagnosis, error) {
	prompt := l.Prompt
	if prompt == "" {
		prompt = defaultPrompt
	}
	maxWeak := l.MaxWeak
	if maxWeak <= 0 {
		maxWeak = 3
	}
	repJSON, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return nil, err
	}
	text := strings.NewReplacer("{{report}}", string(repJSON),
		"{{conversations}}", l.conversations(rep),
		"{{max_weak}}", strconv.Itoa(maxWeak)).Replace(prompt)
	zero := 0.0
	resp, err := l.Client.Chat(ctx, &chatapi.Request{
		Model:          l.Model,
		Messages:       []chatapi.Message{{Role: chatapi.RoleUser, Content: text}},
		Temperature:    &zero,
		ResponseFormat: &chatapi.ResponseFormat{Type: "json_object"},
	})
	if err != nil {
		return nil, fmt.Errorf("llm diagnosis: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("llm diagnosis: the model returned no choice")
	}
	d, err := parseDiagnosis(resp.Choices[0].Message.Content)
	if err != nil {
		return nil, fmt.Errorf("llm diagnosis: %w", err)
	}
	if len(d.Weak) > maxWeak {
		return nil, fmt.Errorf("llm diagnosis: %d weak environments, asked for at most %d", len(d.Weak), maxWeak)
	}
	if err := d.Validate(rep); err != nil {
		return nil, fmt.Errorf("llm diagnosis: %w", err)
	}
	d.By = "llm:" + l.Model
	return d, nil
}

// parseDiagnosis reads the model's answer: one JSON object, optionally in
// a ``` fence; unknown fields are refused so that a misspelt field is an
// error, not a silently empty guideline.
func parseDiagnosis(s string) (*Diagnosis, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var d Diagnosis
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("answer is not a diagnosis object: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("answer has text after the JSON object")
	}
	return &d, nil
}

func (l *LLM) conversations(rep *Report) string {
	maxN, maxB := l.MaxConversations, l.MaxConversationBytes
	if maxN <= 0 {
		maxN = 12
	}
	if maxB <= 0 {
		maxB = 6000
	}
	failed := map[[2]string]map[int64]bool{}
	for _, f := range rep.Failures {
		k := [2]string{f.Env, f.Task}
		if failed[k] == nil {
			failed[k] = map[int64]bool{}
		}
		failed[k][f.Seed] = true
	}
	var b strings.Builder
	n := 0
	for i := range l.Records {
		r := &l.Records[i]
		if n >= maxN || !failed[[2]string{r.Env, r.Task}][r.Seed] {
			continue
		}
		n++
		var c strings.Builder
		fmt.Fprintf(&c, "### %s / %s (seed %d, finish %s)\n", r.Env, r.Task, r.Seed, r.Finish)
		for _, m := range r.Messages {
			fmt.Fprintf(&c, "[%s] %s", m.Role, m.Content)
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&c, " call %s(%s)", tc.Function.Name, tc.Function.Arguments)
			}
			c.WriteString("\n")
		}
		s := c.String()
		if len(s) > maxB {
			s = strings.ToValidUTF8(s[:maxB], "") + "\n[truncated]\n"
		}
		b.WriteString(s)
	}
	return b.String()
}
