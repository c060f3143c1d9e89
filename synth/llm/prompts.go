package llm

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed prompts
var defaultPrompts embed.FS

// userMarker separates a template's system part from its user part.
const userMarker = "=== user ===\n"

// Prompts are the parsed templates and output schemas of every stage.
type Prompts struct {
	system, user map[string]*template.Template
	schema       map[string]*jsonschema.Schema
	schemaRaw    map[string]json.RawMessage
	text         map[string]string // template + schema text, part of each stage's cache key
	feedback     *template.Template
}

// WritePrompts copies the default prompts into dir so that a user can edit
// them and pass dir as Config.PromptDir. Existing files are kept.
func WritePrompts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(defaultPrompts, "prompts", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		dst := filepath.Join(dir, filepath.Base(p))
		if _, err := os.Stat(dst); err == nil {
			return nil
		}
		b, err := defaultPrompts.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(dst, b)
	})
}

// LoadPrompts reads the prompts from dir, falling back to the built-in ones
// for any file dir lacks ("" reads only the built-in ones).
func LoadPrompts(dir string) (*Prompts, error) {
	read := func(name string) ([]byte, error) {
		if dir != "" {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		return defaultPrompts.ReadFile("prompts/" + name)
	}
	p := &Prompts{system: map[string]*template.Template{}, user: map[string]*template.Template{},
		schema: map[string]*jsonschema.Schema{}, schemaRaw: map[string]json.RawMessage{}, text: map[string]string{}}
	funcs := template.FuncMap{"json": toJSON, "indent": indentJSON}
	for _, st := range append(slices.Clone(promptedStages), languagePrompts...) {
		tb, err := read(st + ".tmpl")
		if err != nil {
			return nil, fmt.Errorf("prompt %s: %w", st, err)
		}
		sys, usr, ok := strings.Cut(string(tb), userMarker)
		if !ok {
			return nil, fmt.Errorf("prompt %s.tmpl: no %q line between the system and the user part", st, strings.TrimSpace(userMarker))
		}
		if p.system[st], err = template.New(st + ".system").Funcs(funcs).Option("missingkey=error").Parse(sys); err != nil {
			return nil, fmt.Errorf("prompt %s.tmpl: %v", st, err)
		}
		if p.user[st], err = template.New(st + ".user").Funcs(funcs).Option("missingkey=error").Parse(usr); err != nil {
			return nil, fmt.Errorf("prompt %s.tmpl: %v", st, err)
		}
		sb, err := read(schemaOf(st) + ".schema.json")
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", st, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sb))
		if err != nil {
			return nil, fmt.Errorf("%s.schema.json: %v", st, err)
		}
		c := jsonschema.NewCompiler()
		url := "synth://" + st + ".schema.json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s.schema.json: %v", st, err)
		}
		if p.schema[st], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("%s.schema.json: %v", st, err)
		}
		p.schemaRaw[st] = json.RawMessage(sb)
		p.text[st] = string(tb) + "\x00" + string(sb)
	}
	fb, err := read("feedback.tmpl")
	if err != nil {
		return nil, fmt.Errorf("prompt feedback: %w", err)
	}
	if p.feedback, err = template.New("feedback").Funcs(funcs).Parse(string(fb)); err != nil {
		return nil, fmt.Errorf("prompt feedback.tmpl: %v", err)
	}
	for k := range p.text {
		p.text[k] += "\x00" + string(fb)
	}
	return p, nil
}

// messages renders a stage's first two messages.
func (p *Prompts) messages(stage string, data any) ([]Message, error) {
	var sys, usr bytes.Buffer
	if err := p.system[stage].Execute(&sys, data); err != nil {
		return nil, fmt.Errorf("prompt %s: %v", stage, err)
	}
	if err := p.user[stage].Execute(&usr, data); err != nil {
		return nil, fmt.Errorf("prompt %s: %v", stage, err)
	}
	return []Message{{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(usr.String())}}, nil
}

// feedbackMessage renders the message that asks for a repaired answer.
func (p *Prompts) feedbackMessage(stage string, attempt int, problems []string) (string, error) {
	var b bytes.Buffer
	err := p.feedback.Execute(&b, map[string]any{"Stage": stage, "Attempt": attempt, "Problems": problems})
	return strings.TrimSpace(b.String()), err
}

// validate checks a stage's output against its schema and decodes it.
func (p *Prompts) validate(stage string, content string, out any) error {
	content = stripFences(content)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(content))
	if err != nil {
		return fmt.Errorf("the answer is not valid JSON: %v", err)
	}
	if err := p.schema[stage].Validate(doc); err != nil {
		return fmt.Errorf("the answer does not match the output schema: %v", err)
	}
	if err := json.Unmarshal([]byte(content), out); err != nil {
		return fmt.Errorf("the answer does not decode: %v", err)
	}
	return nil
}

// stripFences removes a ```json … ``` fence some models put around JSON
// even in JSON mode.
func stripFences(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return strings.TrimSpace(s)
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func indentJSON(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}
