package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wasmenv arena report reads a rollout file written by wasmenv rollout and
// explains it; bad arena flags are refused before any work, with the fix.
func TestArenaReportAndFlags(t *testing.T) {
	bundle := buildMini(t)
	dir := t.TempDir()
	rollouts := filepath.Join(dir, "r.jsonl")
	if _, stderr, code := run(t, "", "rollout", bundle, "--policy", "oracle", "--group", "2", "-o", rollouts, "-q"); code != 0 {
		t.Fatalf("rollout: %s", stderr)
	}
	stdout, stderr, code := run(t, "", "arena", "report", bundle, "--rollouts", rollouts, "--json")
	if code != 0 {
		t.Fatalf("arena report: %s", stderr)
	}
	var rep struct {
		Rollouts int            `json:"rollouts"`
		Outcomes map[string]int `json:"outcomes"`
		Envs     []struct {
			Env string `json:"env"`
		} `json:"environments"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Rollouts != 6 || len(rep.Envs) != 1 || len(rep.Outcomes) == 0 {
		t.Fatalf("report: %v %s", err, stdout)
	}
	if stdout, _, _ := run(t, "", "arena", "report", bundle, "--rollouts", rollouts); !strings.Contains(stdout, "call outcomes:") {
		t.Fatalf("text report: %s", stdout)
	}
	garbage := filepath.Join(dir, "g.jsonl")
	os.WriteFile(garbage, []byte("{\"env\":\"mini\"\n"), 0o644)
	if _, stderr, code := run(t, "", "arena", "report", bundle, "--rollouts", garbage); code == 0 || !strings.Contains(stderr, "record 1") {
		t.Fatalf("garbage rollouts: %d %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "--out", dir + "/a"}, "--arena is required"},
		{[]string{"arena", "--out", dir + "/b", "--arena", "nope"}, "want NAME=DB"},
		{[]string{"arena", "--arena", "x=" + bundle}, "--out is required"},
		{[]string{"arena", "--out", dir + "/c", "--arena", "x=" + bundle, "--diagnose", "astrology"}, "unknown --diagnose"},
		{[]string{"arena", "--out", dir + "/d/e", "--arena", "../../escaped=" + bundle}, "is not an environment name"},
		{[]string{"arena", "--out", dir + "/f", "--arena", "x=" + bundle, "--targeted", "-1"}, "at least 1"},
	} {
		if _, stderr, code := run(t, "", c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %d %s", c.args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped.sqlite")); err == nil {
		t.Error("a refused name still wrote outside --out")
	}
}
