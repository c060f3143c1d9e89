package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/internal/canonjson"
	"github.com/wasmenv/wasmenv/runtime"
)

// codeOut is the code stage's answer.
type codeOut struct {
	Files []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	} `json:"files"`
	// KeptTests are the tool tests the check kept (those the judge did not
	// call wrong); set by the check, not by the model.
	KeptTests []toolTest `json:"kept_tests,omitempty"`
}

var goFileRE = regexp.MustCompile(`^[a-z0-9_]+\.go$`)

// runCode asks for the tool code (Go, or Python with Config.ToolLanguage)
// and repairs it with the compiler's errors and the tool tests' failures
// as feedback.
func (r *envRun) runCode(ctx context.Context) error {
	var out codeOut
	lang := r.p.cfg.language()
	err := runStage(ctx, r, stageCall{stage: StageCode, key: r.sc.Name, data: r.base(), prompt: lang.prompt}, &out, func(ctx context.Context, o *codeOut) verdict {
		o.KeptTests = nil
		code, probs := codeFiles(o, r.p.cfg.MaxCodeBytes, lang)
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
				probs = append(probs, lang.missing(s.Name))
			}
		}
		for _, h := range have {
			if !slices.ContainsFunc(r.spec, func(s toolSpec) bool { return s.Name == h }) {
				probs = append(probs, lang.extra(h))
			}
		}
		if len(probs) > 0 {
			return verdict{Problems: probs, Score: 1}
		}
		failed, kept, dropped, err := r.testTools(ctx, env, code)
		if err != nil {
			return verdict{Fatal: err}
		}
		o.KeptTests = kept
		return verdict{Problems: failed, Dropped: dropped, Score: 1 + float64(len(kept)-len(failed))/float64(max(len(kept), 1))}
	})
	r.code = map[string][]byte{}
	for _, f := range out.Files {
		r.code[f.Name] = []byte(f.Content)
	}
	r.tests = out.KeptTests
	return err
}

// testTools runs every tool test in a fresh episode. A failing test goes
// to the judge, which says whether the test or the code is wrong
// (EnvFactory): a bad test is dropped, bad code is a problem fed back. It
// returns the tests it keeps and those it drops; r.tests is left as it is.
func (r *envRun) testTools(ctx context.Context, env *runtime.Env, code map[string][]byte) (problems []string, keep []toolTest, dropped []Dropped, err error) {
	for i, t := range r.tests {
		got, passed, err := runToolTest(ctx, env, t)
		if err != nil {
			return nil, nil, nil, err
		}
		if passed {
			keep = append(keep, t)
			continue
		}
		v, err := r.judge(ctx, t, got, code)
		if err != nil {
			return nil, nil, nil, err
		}
		if v.Verdict == "bad_test" {
			dropped = append(dropped, Dropped{What: "tool test " + t.String(), Reason: "judged a bad test: " + v.Reason})
			continue
		}
		keep = append(keep, t)
		problems = append(problems, fmt.Sprintf("tool %s fails test %d: called with %s it should give %s (%s) but returned %s; the judge says the code is wrong: %s",
			t.Tool, i+1, canonjson.Encode(t.Arguments), expectWord(t.Expect), t.Why, got, v.Reason))
	}
	return problems, keep, dropped, nil
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

// codeFiles checks the code stage's files before anything builds them:
// their names, no host clock in SQL, and their size, all files together,
// at most maxBytes (Config.MaxCodeBytes): go build takes ~100-210 MB per
// MB of a composite literal, and a model can answer megabytes of one.
func codeFiles(o *codeOut, maxBytes int, lang toolLanguage) (map[string][]byte, []string) {
	code := map[string][]byte{}
	var probs []string
	total := 0
	for _, f := range o.Files {
		total += len(f.Content)
	}
	if total > maxBytes {
		return nil, []string{fmt.Sprintf("the code is %d bytes, over the limit of %d: write the tools only, with no large tables or literals (the data is in the database)", total, maxBytes)}
	}
	for _, f := range o.Files {
		if !lang.fileRE.MatchString(f.Name) || strings.HasSuffix(f.Name, "_test.go") {
			probs = append(probs, fmt.Sprintf("file name %q: %s", f.Name, lang.fileHint))
			continue
		}
		if hostClockSQL.MatchString(f.Content) {
			probs = append(probs, fmt.Sprintf("%s: SQL reads the host clock (CURRENT_TIMESTAMP or 'now'): use sdk.Now() and pass the time as a parameter", f.Name))
		}
		code[f.Name] = []byte(f.Content)
	}
	return code, probs
}
