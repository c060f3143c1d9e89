package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/canonjson"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// toolTest is a generated positive ("ok") or negative ("error") call.
type toolTest struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Expect    string          `json:"expect"`
	Why       string          `json:"why"`
}

func (t toolTest) String() string {
	return fmt.Sprintf("%s(%s) expecting %s (%s)", t.Tool, canonjson.Encode(t.Arguments), t.Expect, t.Why)
}

func (r *envRun) runToolTests(ctx context.Context) error {
	type testsOut struct {
		Tests []toolTest `json:"tests"`
	}
	var out testsOut
	err := runStage(ctx, r, stageCall{stage: StageToolTests, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *testsOut) verdict {
		var probs []string
		pos := map[string]bool{}
		for i, t := range o.Tests {
			if !slices.ContainsFunc(r.spec, func(s toolSpec) bool { return s.Name == t.Tool }) {
				probs = append(probs, fmt.Sprintf("test %d names tool %q, which the spec does not have", i+1, t.Tool))
			}
			if t.Expect == "ok" {
				pos[t.Tool] = true
			}
		}
		for _, s := range r.spec {
			if !pos[s.Name] {
				probs = append(probs, fmt.Sprintf("tool %s has no positive test (expect \"ok\")", s.Name))
			}
		}
		return verdict{Problems: probs, Score: float64(len(o.Tests) - len(probs))}
	})
	r.tests = out.Tests
	return err
}

// codeOut is the code stage's answer.
type codeOut struct {
	Files []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	} `json:"files"`
}

var goFileRE = regexp.MustCompile(`^[a-z0-9_]+\.go$`)

// runCode asks for the Go tool code and repairs it with the compiler's
// errors and the tool tests' failures as feedback.
func (r *envRun) runCode(ctx context.Context) error {
	var out codeOut
	err := runStage(ctx, r, stageCall{stage: StageCode, key: r.sc.Name, data: r.base()}, &out, func(ctx context.Context, o *codeOut) verdict {
		code := map[string][]byte{}
		var probs []string
		for _, f := range o.Files {
			if !goFileRE.MatchString(f.Name) || strings.HasSuffix(f.Name, "_test.go") {
				probs = append(probs, fmt.Sprintf("file name %q: use lower_case.go", f.Name))
				continue
			}
			if hostClockSQL.MatchString(f.Content) {
				probs = append(probs, fmt.Sprintf("%s: SQL reads the host clock (CURRENT_TIMESTAMP or 'now'): use sdk.Now() and pass the time as a parameter", f.Name))
			}
			code[f.Name] = []byte(f.Content)
		}
		if len(probs) > 0 {
			return verdict{Problems: probs}
		}
		env, b, probs, err := r.build(ctx, code, nil)
		if err != nil {
			return verdict{Fatal: err}
		}
		if len(probs) > 0 {
			return verdict{Problems: probs}
		}
		defer env.Close()
		var have []string
		for _, t := range b.Manifest.Tools {
			have = append(have, t.Name)
		}
		for _, s := range r.spec {
			if !slices.Contains(have, s.Name) {
				probs = append(probs, fmt.Sprintf("tool %s from the spec is missing: write an exported func %s", s.Name, goName(s.Name)))
			}
		}
		for _, h := range have {
			if !slices.ContainsFunc(r.spec, func(s toolSpec) bool { return s.Name == h }) {
				probs = append(probs, fmt.Sprintf("exported function for %s is not in the spec: tools are exactly the spec's; make helpers unexported", h))
			}
		}
		if len(probs) > 0 {
			return verdict{Problems: probs, Score: 1}
		}
		failed, total, err := r.testTools(ctx, env, code)
		if err != nil {
			return verdict{Fatal: err}
		}
		return verdict{Problems: failed, Score: 1 + float64(total-len(failed))/float64(max(total, 1))}
	})
	r.code = map[string][]byte{}
	for _, f := range out.Files {
		r.code[f.Name] = []byte(f.Content)
	}
	return err
}

// build writes the environment with the given code and tasks to the work
// directory and compiles it. Compiler errors come back as problems, with
// paths relative to the environment directory; a loaded Env comes back
// when the build succeeded.
func (r *envRun) build(ctx context.Context, code map[string][]byte, tasks []envpkg.Task) (*runtime.Env, *envpkg.Bundle, []string, error) {
	src := r.source(code, tasks)
	if err := emit.Write(r.workDir, src); err != nil {
		return nil, nil, nil, err
	}
	b, err := compiler.Build(ctx, r.workDir, r.p.cfg.Compiler)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		return nil, nil, compilerProblems(err, r.workDir), nil
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		return nil, nil, []string{"the bundle does not load: " + err.Error()}, nil
	}
	return env, b, nil, nil
}

// source is the environment in the shared emitter's form (the same
// emitter as synth from-db).
func (r *envRun) source(code map[string][]byte, tasks []envpkg.Task) *emit.Env {
	return &emit.Env{
		Name: emit.EnvName(r.sc.Name), Version: "1.0.0", Description: r.sc.Description, Rules: r.rules,
		Clock: r.p.cfg.Clock, Schema: strings.Join(withSemicolons(r.schema), "\n\n") + "\n",
		Seed: strings.Join(withSemicolons(r.data), "\n") + "\n", Tools: code, Tasks: tasks,
	}
}

func withSemicolons(stmts []string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		s = strings.TrimSpace(s)
		if !strings.HasSuffix(s, ";") {
			s += ";"
		}
		out[i] = s
	}
	return out
}

// compilerProblems splits a compiler error into lines, one problem each,
// with the work directory removed from paths (tools/x.go:12:3: …).
func compilerProblems(err error, dir string) []string {
	msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "go build failed:" {
			out = append(out, l)
		}
	}
	return out
}

// testTools runs every tool test in a fresh episode. A failing test goes
// to the judge, which says whether the test or the code is wrong
// (EnvFactory): a bad test is dropped, bad code is a problem fed back.
func (r *envRun) testTools(ctx context.Context, env *runtime.Env, code map[string][]byte) (problems []string, total int, err error) {
	var keep []toolTest
	for i, t := range r.tests {
		got, passed, err := runToolTest(ctx, env, t)
		if err != nil {
			return nil, 0, err
		}
		if passed {
			keep = append(keep, t)
			continue
		}
		v, err := r.judge(ctx, t, got, code)
		if err != nil {
			return nil, 0, err
		}
		if v.Verdict == "bad_test" {
			r.rep.Dropped = append(r.rep.Dropped, Dropped{What: "tool test " + t.String(), Reason: "judged a bad test: " + v.Reason})
			continue
		}
		keep = append(keep, t)
		problems = append(problems, fmt.Sprintf("tool %s fails test %d: called with %s it should give %s (%s) but returned %s; the judge says the code is wrong: %s",
			t.Tool, i+1, canonjson.Encode(t.Arguments), expectWord(t.Expect), t.Why, got, v.Reason))
	}
	r.tests = keep
	return problems, len(keep), nil
}

func runToolTest(ctx context.Context, env *runtime.Env, t toolTest) (got string, passed bool, err error) {
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		return "", false, err
	}
	defer ep.Close()
	args := t.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	res, err := ep.Call(ctx, t.Tool, args)
	if err != nil {
		return "", false, err
	}
	got = truncate(res.Content, 400)
	if res.Outcome.EnvFault() {
		// A crash, a timeout or refused SQL is the code's fault whatever
		// the test expected.
		return fmt.Sprintf("a failure of the tool itself (%s): %s", res.Outcome, got), false, nil
	}
	if res.IsError {
		got = "an error: " + got
	} else {
		got = "ok: " + got
	}
	return got, res.IsError == (t.Expect == "error"), nil
}

func expectWord(e string) string {
	if e == "error" {
		return "an error"
	}
	return "a result"
}

type judgeOut struct {
	Verdict string `json:"verdict"` // bad_test | bad_code
	Reason  string `json:"reason"`
}

func (r *envRun) judge(ctx context.Context, t toolTest, got string, code map[string][]byte) (judgeOut, error) {
	var src strings.Builder
	for _, n := range sortedKeys(code) {
		fmt.Fprintf(&src, "// file tools/%s\n%s\n", n, code[n])
	}
	var out judgeOut
	data := with(r.base(), "Test", t, "Observed", got, "Code", src.String())
	// The verdict is about the test and what it observed; keyed by those, a
	// resumed run does not ask again when only unrelated code changed.
	key := r.sc.Name + "\x00" + t.String() + "\x00" + got
	err := runStage(ctx, r, stageCall{stage: StageJudge, key: key, keyOnly: true, data: data}, &out, func(context.Context, *judgeOut) verdict { return verdict{} })
	return out, err
}


func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
