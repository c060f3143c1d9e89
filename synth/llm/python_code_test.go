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

	"github.com/wasmenv/wasmenv/envpkg"
	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/internal/pywasm"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// pythonRunDir holds the recorded exchanges of `synth llm --tool-language
// python` on two of corpus/'s scenarios (SOURCE.md there): the requests the
// Go run made too (tasks, schema, data, toolspec, tooltests, verifiers)
// are answered by copies of corpus/recording's answers; the code stage's
// Python prompt and the probe and checker rounds, which see the Python
// tools' answers, were answered by a chat model through the relay. Record
// again with TestRecordPythonRun.
const pythonRunDir = "testdata/python-run"

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

// pythonFullConfig is the corpus run's settings in Python, with the
// retention gate off (its agent plays each task twice over many turns: not
// recorded).
func pythonFullConfig(url, out string, run corpusRun) Config {
	cfg := corpusConfig(url, out, run, nil)
	cfg.ToolLanguage = LanguagePython
	cfg.RetainK = 0
	return cfg
}

// TestPythonSynthRunReplays runs the recorded Python run again (a real
// HTTP server, no model): both environments are kept, their tools are
// Python files built into a Python bundle, and each stage's attempts are
// logged beside the Go run's (corpus/NAME/report.json). The retention gate
// is off in this run (pythonFullConfig).
func TestPythonSynthRunReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Python bundles")
	}
	srv := replay.New(t, pythonRunDir)
	table := []string{"| scenario | stage | Go: passed / attempts | Python: passed / attempts |"}
	for _, c := range pythonScenarios {
		out := t.TempDir()
		rep, err := RunScenario(context.Background(), pythonFullConfig(srv.URL, out, c.run), pythonScenario(t, c.name, c.run))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !rep.Kept {
			t.Fatalf("%s: dropped: %s", c.name, rep.Reason)
		}
		tools, err := os.ReadDir(filepath.Join(out, c.name, "tools"))
		if err != nil || len(tools) == 0 {
			t.Fatalf("%s: tools: %v", c.name, err)
		}
		for _, f := range tools {
			if !strings.HasSuffix(f.Name(), ".py") {
				t.Errorf("%s: tool file %s is not Python", c.name, f.Name())
			}
		}
		b, err := envpkg.Read(rep.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pywasm.ParseStub(b.Module); err != nil {
			t.Errorf("%s: the bundle is not a Python bundle: %v", c.name, err)
		}
		goStages := goReport(t, c.name).Stages
		for _, st := range Stages {
			py, ok := rep.Stages[st]
			if !ok {
				continue
			}
			if py.Passed != py.Runs {
				t.Errorf("%s: stage %s %+v", c.name, st, py)
			}
			g := goStages[st]
			table = append(table, fmt.Sprintf("| %s | %s | %d / %d | %d / %d |", c.name, st, g.Passed, g.Trials, py.Passed, py.Trials))
		}
	}
	t.Log("stages per language:\n" + strings.Join(table, "\n"))
	st := srv.Stats()
	for _, e := range srv.Index {
		if st.Used[e.File] == 0 {
			t.Errorf("recorded answer %s was not asked for", e.File)
		}
	}
}

func goReport(t *testing.T, name string) EnvReport {
	b, err := os.ReadFile(filepath.Join(corpusDir, name, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep EnvReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRecordPythonRun records the Python run: with
// WASMENV_PY_RELAY=http://127.0.0.1:8931 (llmrelay -dir DIR), a request
// corpus/recording or testdata/python-run holds is answered from there and
// any other goes to the relay. The recorded answers it used are listed in
// $WASMENV_PY_RELAY_DIR/corpus-used.txt; copy them and DIR/record/* into
// testdata/python-run.
func TestRecordPythonRun(t *testing.T) {
	relayURL := os.Getenv("WASMENV_PY_RELAY")
	if relayURL == "" {
		t.Skip("set WASMENV_PY_RELAY to a running llmrelay to record")
	}
	byKey := map[string]string{} // request key -> recorded answer file
	for _, dir := range []string{filepath.Join(corpusDir, "recording"), pythonRunDir} {
		for _, e := range replay.New(t, dir).Index {
			if e.Key != "" && byKey[e.Key] == "" {
				byKey[e.Key] = filepath.Join(dir, e.File)
			}
		}
	}
	var mu sync.Mutex
	used := map[string]bool{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if file := byKey[replay.RequestKey(body)]; file != "" {
			b, err := os.ReadFile(file)
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
		rep, err := RunScenario(context.Background(), pythonFullConfig(proxy.URL, t.TempDir(), c.run), pythonScenario(t, c.name, c.run))
		t.Logf("%s: %v, kept %v %s, stages %+v", c.name, err, rep.Kept, rep.Reason, rep.Stages)
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
