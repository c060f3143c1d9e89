package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Static checks what needs no tool code to run: every ground-truth call
// names a tool of the bundle and its arguments pass that tool's input
// schema. Arguments are checked as the runtime checks an agent's: a null
// for an argument that is not required counts as absent.
func Static(b *envpkg.Bundle) *Report {
	r := &Report{Env: b.Manifest.Name}
	schemas, err := compileSchemas(b.Manifest.Tools)
	for i := range b.Tasks {
		t := &b.Tasks[i]
		tr := TaskResult{ID: t.ID, Calls: len(t.Calls), GroundTruth: -1, Empty: -1}
		if err != nil {
			tr.fail("%v", err)
		}
		for j, c := range t.Calls {
			s, ok := schemas[c.Name]
			if !ok {
				tr.failCall(j+1, "call %d: unknown tool %q", j+1, c.Name)
				continue
			}
			if msg := s.check(c.Arguments); msg != "" {
				tr.failCall(j+1, "call %d (%s): arguments do not match the tool's schema: %s", j+1, c.Name, msg)
			}
		}
		r.Tasks = append(r.Tasks, tr)
	}
	return r
}

type toolSchema struct {
	schema   *jsonschema.Schema
	required map[string]bool
}

func compileSchemas(tools []envpkg.Tool) (map[string]toolSchema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // as the runtime: no files, no URLs
	out := map[string]toolSchema{}
	for _, t := range tools {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.InputSchema))
		if err != nil {
			return out, fmt.Errorf("tool %s: schema: %v", t.Name, err)
		}
		url := "wasmenv:///tools/" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return out, fmt.Errorf("tool %s: schema: %v", t.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return out, fmt.Errorf("tool %s: schema: %v", t.Name, err)
		}
		ts := toolSchema{schema: s, required: map[string]bool{}}
		if m, ok := doc.(map[string]any); ok {
			if req, ok := m["required"].([]any); ok {
				for _, r := range req {
					if name, ok := r.(string); ok {
						ts.required[name] = true
					}
				}
			}
		}
		out[t.Name] = ts
	}
	return out, nil
}

// check returns "" when args pass the schema, else why not.
func (s toolSchema) check(args []byte) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	if obj, ok := doc.(map[string]any); ok {
		for k, v := range obj {
			if v == nil && !s.required[k] {
				delete(obj, k)
			}
		}
	}
	if err := s.schema.Validate(doc); err != nil {
		return schemaMessage(err)
	}
	return ""
}

var printer = message.NewPrinter(language.English)

// schemaMessage lists the failing places of a validation error on one
// line, as the runtime words it for an agent.
func schemaMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			loc := "/" + strings.Join(v.InstanceLocation, "/")
			msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, v.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}
