package synth

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/tasks"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// crudRules is the system message of a CRUD toolset.
const crudRules = "Identify rows the way the user names them (find_* tools take names, emails and codes); internal ids come from earlier tool results. Change only what the user asks for.\n\n" + answering

// answering states the answer rules' contract (runtime's envpkg.Alone):
// an answer is the value asked for, not a list it is in. Without it,
// agents and judges gave right values with context and were scored
// wrong (2 of 20 tasks played on held-out databases, 13 of 64 retention-
// gate attempts in the 2026-12-07 runs); since issue 34's round 6 that
// context is allowed, and the text says what is and what is not.
const answering = "Answering: when the user asks for a value, give that value as the records hold it. You may say which record it is by a few of its own fields (a number with its field's name as the records write it: \"total 42.50 (order_id 1001)\") and repeat what the user said (\"it is not pending: it is shipped\"). Do not paste records or tool output, do not add figures or values of other rows, and do not offer alternatives: a reply that holds another candidate value is not an answer."

// Policy is a domain toolset's system message, like τ-bench's wiki: whom
// the agent serves and how it finds them, what it checks before a change,
// and what it must refuse. Every rule it states is one an action enforces
// (the action refuses) or a task's checks verify (nothing else changed; a
// condition that does not hold changes nothing); the refusals are quoted
// from the actions' own descriptions, so the policy and the tools cannot
// disagree. The text comes from table and column names only through the
// tools' descriptions (dbmodel.CommentText), never from row data.
func Policy(name string, spec *toolgen.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are the assistant of %s. You act for the user on their records, through the tools only.\n\n", dbmodel.CommentText(name))
	finds := tasks.Identifiers(spec)
	b.WriteString("Identifying: find the user, and the rows they speak of, by what they tell you")
	if len(finds) > 0 {
		b.WriteString(": " + strings.Join(finds, ", "))
	}
	b.WriteString(". Never guess or make up an id: ids come from earlier tool results. If what the user gives matches no row, or more than one, say so and change nothing.\n\n")
	b.WriteString(scopeRule(spec.Scope, spec.Model))
	b.WriteString("Before a change: look the row up first and check that it is the one the user means and in the state they expect. Make exactly the changes asked for, with the values the user gave, and nothing else; never delete a record. When the user makes a change depend on a condition (\"if it is still pending\"), check it; when it does not hold, change nothing and tell them what you found.\n\n")
	var rules []string
	for _, t := range spec.Tools {
		if t.Kind != toolgen.DomainAction {
			continue
		}
		var refused []string
		for _, s := range strings.SplitAfter(t.Doc, ". ") {
			if s = strings.TrimSpace(s); strings.HasPrefix(s, "Refused") {
				refused = append(refused, strings.TrimSuffix(strings.TrimPrefix(s, "Refused "), "."))
			}
		}
		if len(refused) > 0 {
			rules = append(rules, fmt.Sprintf("- %s: not allowed %s.", t.Name, strings.Join(refused, "; nor ")))
		}
	}
	if len(rules) > 0 {
		b.WriteString("Use the actions for what they do (they keep the rows that move together in step); do not make their changes field by field. You must refuse, and change nothing, when a rule forbids the change:\n")
		b.WriteString(strings.Join(rules, "\n"))
		b.WriteString("\nWhen an action refuses, tell the user why, with the fact that stops it (the state the row is in and since when, the stock left).\n")
		b.WriteString("When the user asks for the same change on several rows, make it on each row the rules allow, leave the others, and tell the user how many were refused.\n")
	}
	b.WriteString("\n" + answering)
	return strings.TrimSpace(b.String())
}

// scopeRule states the served person's scope (toolgen.Scope): whose
// records the agent acts on and the only tables it may change; any other
// change is refused with nothing changed (the toolset offers no tool for
// it, and the tasks that ask for one are refusals). "" with no scope.
func scopeRule(s *toolgen.Scope, m *dbmodel.Model) string {
	if s == nil {
		return ""
	}
	words := func(tables []string) string {
		out := make([]string, len(tables))
		for i, t := range tables {
			out[i] = strings.ReplaceAll(dbmodel.CommentText(t), "_", " ")
		}
		return strings.Join(out, ", ")
	}
	var b strings.Builder
	if s.Person != "" {
		fmt.Fprintf(&b, "Whose records: the user is one of the %s, and you act on their own records. ", words([]string{s.Person}))
	}
	if len(s.Tables) == 0 {
		b.WriteString("You may not change any record: answer questions only. Refuse every change, change nothing, and tell the user it is not something you can change for them.\n\n")
		return b.String()
	}
	fmt.Fprintf(&b, "You may change only these records (%s), and only the user's own%s. Refuse any other change (reference records, other people's records, what the business itself keeps): change nothing, and tell the user it is not something you can change for them.\n\n", words(s.Tables), ownRows(s, m, words))
	return b.String()
}

// ownRows says which rows are the user's own, by the references that
// make them so: the user's record, the rows of the scope's tables that
// name the user ("the employees whose manager id is the user": a
// manager's reports are theirs to change), and the rows that belong to
// those. The tasks change no other row of the person's table
// (tasks.othersRows). "" without a person or a model.
func ownRows(s *toolgen.Scope, m *dbmodel.Model, words func([]string) string) string {
	if s.Person == "" || m == nil {
		return ""
	}
	var refs []string
	for _, name := range s.Tables {
		t := m.Table(name)
		if t == nil {
			continue
		}
		for _, fk := range t.ForeignKeys {
			if fk.RefTable == s.Person && len(fk.Columns) == 1 {
				refs = append(refs, fmt.Sprintf("the %s whose %s is the user", words([]string{name}), words(fk.Columns)))
			}
		}
	}
	if len(refs) == 0 {
		return ""
	}
	return ": their own record, " + strings.Join(refs, ", ") + ", and the rows that belong to those"
}
