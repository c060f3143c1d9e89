package design

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// wordingItem is one task as the wording prompt shows it.
type wordingItem struct {
	ID          string   `json:"id"`
	Instruction string   `json:"instruction"`
	Keep        []string `json:"keep_exactly"`
	Asks        string   `json:"asks"`
}

type wordingAnswer struct {
	Rewrites []struct {
		ID          string `json:"id"`
		Instruction string `json:"instruction"`
	} `json:"rewrites"`
}

// Reword rewrites the tasks' instructions in batches, in place; a rewrite
// that fails its gate leaves the procedural wording. conn is the
// environment's database (other rows' values are looked up in it).
func (s *Stage) Reword(ctx context.Context, ts []envpkg.Task, m *dbmodel.Model, conn *sqlite3.Conn) error {
	if s.NoWording {
		return nil
	}
	batch := s.Batch
	if batch <= 0 {
		batch = 20
	}
	others, err := rowValues(m, conn)
	if err != nil {
		return err
	}
	w := &s.report.Wording
	if w.Reasons == nil {
		w.Reasons = map[string]int{}
	}
	for start := 0; start < len(ts); start += batch {
		part := ts[start:min(start+batch, len(ts))]
		items := make([]wordingItem, len(part))
		for i, t := range part {
			items[i] = wordingItem{ID: t.ID, Instruction: t.Instruction, Keep: userValues(t), Asks: asks(t)}
		}
		data, err := json.MarshalIndent(items, "", " ")
		if err != nil {
			return err
		}
		resp, err := s.Client.Chat(ctx, &chatapi.Request{Model: s.Model, MaxTokens: 8000, Temperature: new(float64),
			Messages: []chatapi.Message{{Role: chatapi.RoleSystem, Content: wordingSystem}, {Role: chatapi.RoleUser, Content: wordingPrompt(s.domain(), string(data))}}})
		if err != nil {
			return fmt.Errorf("design: rewording: %w", err)
		}
		w.Prompts++
		w.Sent += len(part)
		got := map[string]string{}
		var ans wordingAnswer
		text := resp.Choices[0].Message.Content
		if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i && json.Unmarshal([]byte(text[i:j+1]), &ans) == nil {
			for _, r := range ans.Rewrites {
				got[r.ID] = strings.TrimSpace(r.Instruction)
			}
		}
		for i := range part {
			t := &part[i]
			out, ok := got[t.ID]
			why := "no rewrite in the answer"
			if ok {
				why = gateRewrite(*t, out, others)
			}
			before := t.Instruction
			if why != "" {
				w.Failed++
				w.Reasons[why]++
			} else {
				w.Kept++
				t.Instruction = out
			}
			if s.Trace != nil {
				s.Trace(t.ID, before, t.Instruction, why)
			}
		}
	}
	return nil
}

// domain is what the design said of whom the assistant serves.
func (s *Stage) domain() string {
	if s.Serves != "" {
		return s.Serves
	}
	for i := len(s.msgs) - 1; i >= 0; i-- {
		if s.msgs[i].Role == chatapi.RoleAssistant {
			if a, err := parseAnswer(s.msgs[i].Content); err == nil && sentence("serves", a.Serves) == nil {
				return a.Serves
			}
		}
	}
	return ""
}

// asks says what the task asks for, without the answer.
func asks(t envpkg.Task) string {
	switch {
	case strings.Contains(t.ID, "-refuse"):
		return "a change the rules may refuse: keep the condition and what the user wants to be told"
	case t.Answer != nil:
		return "a value, which the assistant must look up (never state it)"
	}
	return "a change to the records"
}

// UserValues are the values the ground truth takes from the user, which
// a rewrite must keep: every call argument that the instruction says,
// every quoted phrase, and every word with a digit or an @.
func UserValues(t envpkg.Task) []string { return userValues(t) }

func userValues(t envpkg.Task) []string {
	var found []string
	add := func(v string) {
		if v != "" && strings.Contains(t.Instruction, v) && !slices.Contains(found, v) {
			found = append(found, v)
		}
	}
	for _, c := range t.Calls {
		var args map[string]any
		d := json.NewDecoder(bytes.NewReader(envpkg.CallArguments(c.Arguments)))
		d.UseNumber()
		if d.Decode(&args) != nil {
			continue
		}
		// In the order of the keys: the prompt is the same on every run.
		for _, k := range slices.Sorted(maps.Keys(args)) {
			switch x := args[k].(type) {
			case string:
				add(x)
			case json.Number:
				add(x.String())
			case []any:
				for _, item := range x {
					if m, ok := item.(map[string]any); ok {
						for _, ik := range slices.Sorted(maps.Keys(m)) {
							switch v := m[ik].(type) {
							case string:
								add(v)
							case json.Number:
								add(v.String())
							}
						}
					}
				}
			}
		}
	}
	for _, q := range quotedRE.FindAllStringSubmatch(t.Instruction, -1) {
		add(q[1])
	}
	// Words with a digit or an @ (codes, numbers, dates, emails) name
	// the rows the request is about, whether or not a call takes them.
	for _, w := range strings.Fields(quotedRE.ReplaceAllString(t.Instruction, " ")) {
		if w = strings.Trim(w, ".,;:!?()"); strings.ContainsAny(w, "0123456789@") {
			add(w)
		}
	}
	// A value said only inside a longer one is kept with it (the parts of
	// a phone number); the rest in the order the instruction says them.
	var out []string
	at := map[string]int{}
	for _, v := range found {
		rest := t.Instruction
		for _, o := range found {
			if len(o) > len(v) && strings.Contains(o, v) {
				rest = strings.ReplaceAll(rest, o, strings.Repeat(" ", len(o)))
			}
		}
		if i := strings.Index(rest, v); i >= 0 {
			out, at[v] = append(out, v), i
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return at[a] - at[b] })
	return out
}

var (
	quotedRE = regexp.MustCompile(`"([^"]+)"`)
	digitsRE = regexp.MustCompile(`[0-9]+`)
	wordsRE  = regexp.MustCompile(`[\pL\pN][\pL\pN'@._-]*`)
)

// maxGrowth bounds a rewrite's length against the original's.
const maxGrowth = 3

// gateRewrite returns why a rewrite fails, "" when it passes.
func gateRewrite(t envpkg.Task, out string, others map[string]bool) string {
	orig := t.Instruction
	switch {
	case out == "":
		return "empty"
	case strings.Contains(out, "\n"):
		return "more than one line"
	case utf8.RuneCountInString(out) > maxGrowth*utf8.RuneCountInString(orig)+40:
		return "too long"
	}
	for _, v := range userValues(t) {
		if !strings.Contains(out, v) {
			return "a value the ground truth takes from the user is missing"
		}
	}
	if t.Answer != nil {
		a := strings.TrimSpace(t.Answer.Value)
		if a != "" && !strings.Contains(strings.ToLower(orig), strings.ToLower(a)) && strings.Contains(strings.ToLower(out), strings.ToLower(a)) {
			return "it states the expected answer"
		}
	}
	have := digitsRE.FindAllString(orig, -1)
	for _, n := range digitsRE.FindAllString(out, -1) {
		if !slices.Contains(have, n) {
			return "a number the original does not say"
		}
	}
	lo, lout := strings.ToLower(orig), strings.ToLower(out)
	words := wordsRE.FindAllString(lout, -1)
	// Names are compared as written and word by word, as rowValues and
	// namedRows keep them ("Vienna = Wien" is "vienna wien").
	said := " " + strings.Join(words, " ") + " "
	origSaid := " " + strings.Join(wordsRE.FindAllString(lo, -1), " ") + " "
	for _, name := range namedRows(orig, others) {
		if !strings.Contains(lout, name) && !strings.Contains(said, " "+name+" ") {
			return "a row the original names is missing"
		}
	}
	for i := range words {
		for j := i + 1; j <= min(i+6, len(words)); j++ {
			phrase := strings.Join(words[i:j], " ")
			if others[phrase] && !strings.Contains(lo, phrase) && !strings.Contains(origSaid, " "+phrase+" ") {
				return "a value of another row"
			}
		}
	}
	return ""
}

// namedRows lists the values of rows that the instruction names in
// passing, capitalized inside a sentence (a person's name, a title):
// they tell the rows apart even where no call takes them.
func namedRows(orig string, values map[string]bool) []string {
	var out []string
	locs := wordsRE.FindAllStringIndex(orig, -1)
	for i, l := range locs {
		first, _ := utf8.DecodeRuneInString(orig[l[0]:])
		before := strings.TrimRight(orig[:l[0]], " \"(")
		if !unicode.IsUpper(first) || before == "" || strings.HasSuffix(before, ".") || strings.HasSuffix(before, "!") || strings.HasSuffix(before, "?") {
			continue
		}
		for j := min(i+6, len(locs)); j > i; j-- {
			words := wordsRE.FindAllString(strings.ToLower(orig[l[0]:locs[j-1][1]]), -1)
			if phrase := strings.Join(words, " "); values[phrase] {
				out = append(out, phrase)
				break
			}
		}
	}
	return out
}

// maxOtherValues bounds the values collected from the rows.
const maxOtherValues = 200000

// rowValues collects the text values of the rows that a rewrite could
// name by mistake (names, titles, codes; at least four characters with a
// letter), lower-cased and with words joined by single spaces.
func rowValues(m *dbmodel.Model, conn *sqlite3.Conn) (map[string]bool, error) {
	out := map[string]bool{}
	for _, t := range m.Tables {
		for _, c := range t.Columns {
			if c.Kind != dbmodel.Text || c.Opaque != "" || c.MaxLen > 80 {
				continue
			}
			stmt, _, err := conn.Prepare("SELECT DISTINCT " + dbmodel.Quote(c.Name) + " FROM " + dbmodel.Quote(t.Name) + " WHERE length(" + dbmodel.Quote(c.Name) + ") BETWEEN 4 AND 80")
			if err != nil {
				return nil, err
			}
			for stmt.Step() && len(out) < maxOtherValues {
				v := strings.Join(wordsRE.FindAllString(strings.ToLower(stmt.ColumnText(0)), -1), " ")
				if len(v) >= 4 && strings.IndexFunc(v, unicode.IsLetter) >= 0 {
					out[v] = true
				}
			}
			err = stmt.Err()
			stmt.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
