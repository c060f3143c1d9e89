package llm

import (
	"strings"
	"testing"
)

// A model's multi-megabyte composite literal is fed back as too large
// before anything writes or builds it (issue 25, finding 5: an 8 MB one
// took go build to 1.7 GB).
func TestCodeOverTheCapIsNotBuilt(t *testing.T) {
	var lit strings.Builder
	lit.WriteString("package tools\n\nvar _ = []int{\n")
	for lit.Len() < DefaultMaxCodeBytes+1 {
		lit.WriteString("\t1234567890, 1234567890, 1234567890,\n")
	}
	lit.WriteString("}\n")
	o := &codeOut{}
	o.Files = append(o.Files, struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	}{"tools.go", lit.String()})
	code, probs := codeFiles(o, DefaultMaxCodeBytes, toolLanguages[LanguageGo])
	if code != nil || len(probs) != 1 || !strings.Contains(probs[0], "over the limit of 262144") {
		t.Fatalf("code %d files, problems %q", len(code), probs)
	}
	o.Files[0].Content = "package tools\n"
	if code, probs := codeFiles(o, DefaultMaxCodeBytes, toolLanguages[LanguageGo]); len(code) != 1 || len(probs) != 0 {
		t.Fatalf("a small file: %d files, %q", len(code), probs)
	}
}
