package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/chatapi"
)

// Rewriter rewrites instructions with a chat model (an OpenAI-compatible
// endpoint) into freer prose. A rewrite is kept only when it still holds,
// verbatim, every value the task depends on (the values the instruction
// names: call arguments, quoted names, words with a digit or an @, allowed
// values), does not state the expected answer, and stays a short request;
// otherwise the grammar's instruction stays. The gates then judge the task
// with the instruction kept.
type Rewriter struct {
	Client *chatapi.Client
	Model  string
}

// rewritePrompt asks for one rewrite and nothing else.
const rewritePrompt = `You rewrite requests that a user sends to a customer-service assistant so that they sound like a real person wrote them: vary the wording and the order, keep it short (one to three sentences), keep the first person if the user speaks of themselves.
Rules: keep every one of these values exactly as written, character for character: %s. Do not add facts, names, numbers or ids. Do not answer the request. Reply with the rewritten request only.

Request: %s`

// maxRewriteGrowth bounds how much longer than the original a rewrite may be.
const maxRewriteGrowth = 3

// Rewrite returns the rewritten instruction and true, or the original and
// false when the model's text drops a value or breaks a rule. An error is
// the endpoint's.
func (r *Rewriter) Rewrite(ctx context.Context, instruction string, keep []string, answer string) (string, bool, error) {
	quoted := make([]string, len(keep))
	for i, k := range keep {
		quoted[i] = fmt.Sprintf("%q", k)
	}
	prompt := fmt.Sprintf(rewritePrompt, strings.Join(quoted, ", "), instruction)
	temp := 0.7
	resp, err := r.Client.Chat(ctx, &chatapi.Request{Model: r.Model, Temperature: &temp, MaxTokens: 300,
		Messages: []chatapi.Message{{Role: "user", Content: prompt}}})
	if err != nil {
		return instruction, false, err
	}
	out := strings.TrimSpace(strings.Trim(strings.TrimSpace(resp.Choices[0].Message.Content), `"`))
	if !acceptRewrite(out, instruction, keep, answer) {
		return instruction, false, nil
	}
	return out, true, nil
}

// acceptRewrite applies the rules a rewrite must keep. With no value to
// check, nothing shows the meaning survived: the original stays.
func acceptRewrite(out, orig string, keep []string, answer string) bool {
	if len(keep) == 0 || out == "" || strings.Contains(out, "\n\n") || utf8.RuneCountInString(out) > maxRewriteGrowth*utf8.RuneCountInString(orig)+40 {
		return false
	}
	for _, k := range keep {
		if !strings.Contains(out, k) {
			return false
		}
	}
	a := strings.TrimSpace(answer)
	return a == "" || strings.Contains(orig, a) || !strings.Contains(strings.ToLower(out), strings.ToLower(a))
}

var (
	quotedRE = regexp.MustCompile(`"[^"]+"`)
	tokenRE  = regexp.MustCompile(`[^\s,;:!?()]+`)
)

// keepValues lists the values in an instruction that the task depends on:
// quoted strings, words with a digit or an @ (order numbers, emails,
// amounts), and the words that are a call's argument or one of allowed
// values (statuses, colors).
func keepValues(instruction string, values map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimRight(s, ".")
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, q := range quotedRE.FindAllString(instruction, -1) {
		add(strings.Trim(q, `"`))
	}
	rest := quotedRE.ReplaceAllString(instruction, " ")
	for _, tok := range tokenRE.FindAllString(rest, -1) {
		t := strings.TrimRight(tok, ".")
		if strings.ContainsAny(t, "0123456789@") || values[t] {
			add(t)
		}
	}
	return out
}

// values are the words a rewrite must keep where the instruction has them:
// the calls' argument values, the values allowed in any column, the
// distractors (a refusal's condition).
func (c *chain) values() map[string]bool {
	v := map[string]bool{}
	for _, call := range c.calls {
		var args map[string]any
		d := json.NewDecoder(bytes.NewReader(call.Arguments))
		d.UseNumber()
		if d.Decode(&args) == nil {
			for _, a := range args {
				switch x := a.(type) {
				case bool:
					v[map[bool]string{true: "yes", false: "no"}[x]] = true
				default:
					v[fmt.Sprint(sqlValue(x))] = true
				}
			}
		}
	}
	for _, e := range c.entities {
		for _, col := range e.table.Columns {
			for _, x := range col.Enum {
				v[x] = true
			}
		}
	}
	for _, d := range c.distractors {
		v[d] = true
	}
	return v
}

// literalAnswer is the expected answer a rewrite must not state ("" for a
// pattern or a number, which prose may contain by chance).
func literalAnswer(a *envpkg.Answer) string {
	if a == nil || a.Match == "regex" || a.Match == "number" {
		return ""
	}
	return a.Value
}
