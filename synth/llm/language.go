package llm

import (
	"fmt"
	"regexp"
)

// The tool languages the code stage may ask for (Config.ToolLanguage).
// Every other stage, the gates, repair and judges are the same for both:
// only the code prompt, the file names it may answer and the words of its
// feedback differ.
const (
	LanguageGo     = "go"
	LanguagePython = "python"
)

// promptCodePython is the code stage's template for Python tools
// (prompts/code_python.tmpl); it is checked against the code stage's schema.
const promptCodePython = "code_python"

// languagePrompts are templates beside the stages' own, each checked
// against the schema schemaOf names.
var languagePrompts = []string{promptCodePython}

// schemaOf is the schema file (without .schema.json) of a template.
func schemaOf(template string) string {
	if template == promptCodePython {
		return StageCode
	}
	return template
}

var pyFileRE = regexp.MustCompile(`^[a-z][a-z0-9_]*\.py$`)

// toolLanguage is one language's rules for the code stage.
type toolLanguage struct {
	prompt string // template name ("" for the stage's own)
	fileRE *regexp.Regexp
	// fileHint says how to name a file; missing and extra are the
	// feedback on a tool of the spec the code lacks and on a tool the
	// spec lacks.
	fileHint       string
	missing, extra func(tool string) string
}

var toolLanguages = map[string]toolLanguage{
	LanguageGo: {fileRE: goFileRE, fileHint: "use lower_case.go",
		missing: func(tool string) string {
			return fmt.Sprintf("tool %s from the spec is missing: write an exported func %s", tool, goName(tool))
		},
		extra: func(tool string) string {
			return fmt.Sprintf("exported function for %s is not in the spec: tools are exactly the spec's; make helpers unexported", tool)
		}},
	LanguagePython: {prompt: promptCodePython, fileRE: pyFileRE, fileHint: "use lower_case.py",
		missing: func(tool string) string {
			return fmt.Sprintf("tool %s from the spec is missing: write a public function %s (no leading underscore) in a tools file", tool, tool)
		},
		extra: func(tool string) string {
			return fmt.Sprintf("public function %s is not in the spec: tools are exactly the spec's; name helpers with a leading underscore", tool)
		}},
}

// language is the run's tool language.
func (c *Config) language() toolLanguage {
	if c.ToolLanguage == "" {
		return toolLanguages[LanguageGo]
	}
	return toolLanguages[c.ToolLanguage]
}

func checkToolLanguage(name string) error {
	if _, ok := toolLanguages[name]; !ok && name != "" {
		return fmt.Errorf("%w: tool language %q: want %s or %s", ErrConfig, name, LanguageGo, LanguagePython)
	}
	return nil
}
