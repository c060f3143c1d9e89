package llm

import (
	"context"
	"fmt"
	"strings"
)

// The judge stage runs inside the code stage's check, once per failing
// tool test: it says whether the test or the code is wrong (EnvFactory).

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
