package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/internal/pywasm"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// pythonCodeDir holds the recorded exchanges of `synth llm --tool-language
// python` on two of corpus/'s scenarios: the stages before the code stage
// asked what the Go run asked (their answers are copies of corpus/
// recording's), the code stage asked for Python and a chat model answered
// through the relay (internal/relay). Record again with
// TestRecordPythonCodeStage.
const pythonCodeDir = "testdata/python-code"

// pythonScenarios are the corpus scenarios the Python run takes, with the
// corpus run whose settings they were made with.
var pythonScenarios = []struct {
	name string
	run  corpusRun
}{{"course-enrolment", corpusRuns[0]}, {"city-permits", corpusRuns[1]}}

func pythonScenario(t *testing.T, name string, run corpusRun) Scenario {
	for _, s := range readCorpusScenarios(t, run.scenarios) {
		if s.Name = emit.EnvName(s.Name); s.Name == name { // as the plan names it
			return s
		}
	}
	t.Fatalf("no scenario %s in %s", name, run.scenarios)
	return Scenario{}
}

// throughCode takes one scenario through the pipeline's stages up to and
// including the code stage, with the corpus run's settings in Python.
func throughCode(ctx context.Context, t *testing.T, url string, name string, run corpusRun) (*envRun, error) {
	cfg := corpusConfig(url, t.TempDir(), run, nil)
	cfg.ToolLanguage = LanguagePython
	p, err := newPipeline(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sc := pythonScenario(t, name, run)
	r := &envRun{p: p, sc: sc, ledger: newLedger(), rep: &EnvReport{Scenario: sc}, workDir: filepath.Join(p.cfg.OutDir, ".work", sc.Name)}
	for _, s := range pipelineStages {
		if s.run == nil {
			continue
		}
		if err := s.run(r, ctx); err != nil {
			return r, err
		}
		if s.name == StageCode {
			break
		}
	}
	return r, nil
}

// TestPythonCodeStageReplays runs the recorded Python run again (a real
// HTTP server, no model): on both scenarios the code stage ends with
// Python tool files that build into a Python bundle, every kept tool test
// passes on it, and its attempts are logged beside the Go run's
// (corpus/NAME/report.json).
func TestPythonCodeStageReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Python bundles")
	}
	srv := replay.New(t, pythonCodeDir)
	var table []string
	for _, c := range pythonScenarios {
		r, err := throughCode(context.Background(), t, srv.URL, c.name, c.run)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(r.code) == 0 {
			t.Fatalf("%s: no code", c.name)
		}
		for name := range r.code {
			if !strings.HasSuffix(name, ".py") {
				t.Errorf("%s: tool file %s is not Python", c.name, name)
			}
		}
		env, b, probs, err := r.build(context.Background(), r.code, nil)
		if err != nil || len(probs) > 0 {
			t.Fatalf("%s: build: %v %v", c.name, err, probs)
		}
		if _, err := pywasm.ParseStub(b.Module); err != nil {
			t.Errorf("%s: the bundle is not a Python bundle: %v", c.name, err)
		}
		if len(r.tests) == 0 {
			t.Errorf("%s: no tool test kept", c.name)
		}
		for _, tt := range r.tests {
			if got, passed, err := runToolTest(context.Background(), env, tt); err != nil || !passed {
				t.Errorf("%s: tool test %s: %s %v", c.name, tt, got, err)
			}
		}
		env.Close()
		py := r.ledger.snapshot()[StageCode]
		if py.Passed != 1 {
			t.Errorf("%s: code stage %+v", c.name, py)
		}
		goStage := goCodeStage(t, c.name)
		table = append(table, fmt.Sprintf("| %s | Go: passed %d, attempts %d | Python: passed %d, attempts %d |", c.name, goStage.Passed, goStage.Trials, py.Passed, py.Trials))
	}
	t.Log("code stage per language:\n" + strings.Join(table, "\n"))
	st := srv.Stats()
	for _, e := range srv.Index {
		if st.Used[e.File] == 0 {
			t.Errorf("recorded answer %s was not asked for", e.File)
		}
	}
}

func goCodeStage(t *testing.T, name string) StageStats {
	b, err := os.ReadFile(filepath.Join(corpusDir, name, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep EnvReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Stages[StageCode]
}

// TestRecordPythonCodeStage records the Python run: with
// WASMENV_PY_RELAY=http://127.0.0.1:8931 (llmrelay -dir DIR), a request
// the corpus recording holds is answered from it (the stages before the
// code stage ask what the Go run asked) and any other goes to the relay.
// The corpus answers it used are listed in DIR/corpus-used.txt; copy them
// and DIR/record/* into testdata/python-code.
func TestRecordPythonCodeStage(t *testing.T) {
	relayURL := os.Getenv("WASMENV_PY_RELAY")
	if relayURL == "" {
		t.Skip("set WASMENV_PY_RELAY to a running llmrelay to record")
	}
	corpus := replay.New(t, filepath.Join(corpusDir, "recording"))
	byKey := map[string]string{}
	for _, e := range corpus.Index {
		if e.Key != "" && byKey[e.Key] == "" {
			byKey[e.Key] = e.File
		}
	}
	var mu sync.Mutex
	used := map[string]bool{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if file := byKey[replay.RequestKey(body)]; file != "" {
			b, err := os.ReadFile(filepath.Join(corpusDir, "recording", file))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			mu.Lock()
			used[file] = true
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
			return
		}
		resp, err := http.Post(relayURL+req.URL.Path, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	for _, c := range pythonScenarios {
		r, err := throughCode(context.Background(), t, proxy.URL, c.name, c.run)
		t.Logf("%s: %v, stages %+v", c.name, err, r.ledger.snapshot())
	}
	var files []string
	for f := range used {
		files = append(files, f)
	}
	sort.Strings(files)
	if dir := os.Getenv("WASMENV_PY_RELAY_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "corpus-used.txt"), []byte(strings.Join(files, "\n")+"\n"), 0o644)
	}
	t.Logf("corpus answers used: %v", files)
}

// The tool language is go or python; anything else is a configuration
// error before any request, and each language's code stage refuses the
// other's files with a hint in its own terms.
func TestToolLanguageChoices(t *testing.T) {
	cfg := Config{Client: &Client{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, OutDir: t.TempDir(), ToolLanguage: "cobol"}
	if _, err := newPipeline(cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("tool language cobol: %v", err)
	}
	for _, lang := range []string{"", LanguageGo, LanguagePython} {
		cfg.ToolLanguage = lang
		if _, err := newPipeline(cfg); err != nil {
			t.Errorf("tool language %q: %v", lang, err)
		}
	}
	o := &codeOut{}
	o.Files = append(o.Files, struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	}{"tools.go", "package tools\n"}, struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	}{"library.py", "def f():\n    pass\n"})
	code, probs := codeFiles(o, DefaultMaxCodeBytes, toolLanguages[LanguagePython])
	if len(code) != 1 || code["library.py"] == nil || len(probs) != 1 || !strings.Contains(probs[0], "lower_case.py") {
		t.Errorf("python: %v %v", code, probs)
	}
	code, probs = codeFiles(o, DefaultMaxCodeBytes, toolLanguages[LanguageGo])
	if len(code) != 1 || code["tools.go"] == nil || len(probs) != 1 || !strings.Contains(probs[0], "lower_case.go") {
		t.Errorf("go: %v %v", code, probs)
	}
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.messages(promptCodePython, map[string]any{"Scenario": Scenario{Title: "T"}, "Rules": "r", "Schema": []string{"CREATE TABLE a (id TEXT)"}, "Tools": []toolSpec{}, "Tests": []toolTest{}})
	if err != nil || !strings.Contains(msgs[0].Content, "from wasmenv import") || strings.Contains(msgs[0].Content, "package tools") {
		t.Errorf("python code prompt: %v %v", msgs, err)
	}
}
