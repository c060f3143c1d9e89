package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A flag's usage text never holds a backquoted phrase: pflag takes it for
// the name of the flag's value, and help read "--nats wasmenv worker
// --serve" and "--serve wasmenv serve --nats" (issue 38).
func TestFlagHelpNamesTheValue(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				name, _ := pflag.UnquoteUsage(f)
				t.Errorf("%s --%s: help shows %q as the value's name", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range commands {
		walk(c())
	}
}

// A mistyped policy or user on a local run is the flag's mistake, said
// without the fleet's prefix (issue 38: `fleet: unknown policy "oracel"`).
func TestLocalFlagTypoNamesNoFleet(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rollout", "x.wasm", "--policy", "oracel", "-o", "-"}, `wasmenv: unknown policy "oracel" (want random, oracle or openai)`},
		{[]string{"eval", "x.wasm", "--policy", "random", "--user", "scriptd", "-o", "-"}, `wasmenv: unknown user "scriptd" (want none, scripted or openai)`},
		{[]string{"serve", "x.wasm", "--user", "scriptd"}, `wasmenv: unknown user "scriptd" (want none, scripted or openai)`},
	} {
		_, stderr, code := run(t, "", c.args...)
		if code == 0 || strings.TrimSpace(stderr) != c.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
