package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// retainFlags are the retention gate's flags of synth from-db and arena
// (synth llm has its own: the gate's model is the pipeline's).
type retainFlags struct {
	k, maxTurns    int
	model, baseURL string
	keyEnv         string
	temperature    float64
	requestsAtOnce int
}

func (f *retainFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&f.k, "retain-k", 0, "retention gate: a model (--retain-model) plays each task this many times as the agent; unsolved tasks are examined and dropped at the environment's fault (Agent-World: 4; 0: no gate)")
	fs.StringVar(&f.model, "retain-model", "", "the retention gate's model (agent and examiner), at --retain-base-url")
	fs.StringVar(&f.baseURL, "retain-base-url", "", "API root of the gate's chat-completions endpoint (default $OPENAI_BASE_URL, else "+chatapi.DefaultBaseURL+")")
	fs.StringVar(&f.keyEnv, "retain-api-key-env", "OPENAI_API_KEY", "environment variable that holds the gate's API key (none sent when empty)")
	fs.IntVar(&f.maxTurns, "retain-max-turns", 20, "assistant turns per attempt of the retention gate")
	fs.Float64Var(&f.temperature, "retain-temperature", 0, "the gate's agent's sampling temperature")
	fs.IntVar(&f.requestsAtOnce, "retain-concurrency", 4, "the gate's requests in flight at once")
}

// config is the gate's configuration; nil when the gate is off.
func (f *retainFlags) config() (*retain.Config, error) {
	switch {
	case f.k == 0:
		return nil, nil
	case f.k < 0 || f.maxTurns < 1 || f.requestsAtOnce < 1:
		return nil, fmt.Errorf("--retain-k must be 0 (no gate) or more, --retain-max-turns and --retain-concurrency at least 1")
	case f.model == "":
		return nil, fmt.Errorf("--retain-k %d needs --retain-model (the model that plays the tasks)", f.k)
	}
	key := ""
	if f.keyEnv != "" {
		key = os.Getenv(f.keyEnv)
	}
	client := chatapi.New(chatapi.BaseURL(f.baseURL), key, f.requestsAtOnce)
	temp := f.temperature
	return &retain.Config{K: f.k, MaxTurns: f.maxTurns, Seed: 1, Concurrency: f.requestsAtOnce,
		Agent:    &openai.Policy{Client: client, Model: f.model, Temperature: &temp},
		Examiner: &retain.LLMExaminer{Client: client, Model: f.model}}, nil
}

// retainFromDB gates what synth from-db wrote: the bundle (a temporary one
// when --bundle was not given) and OUT/tasks.jsonl get the kept tasks,
// OUT/retention.json the gate's report.
func retainFromDB(ctx context.Context, cfg *retain.Config, out, bundlePath string, final *envpkg.Bundle, opts runtime.Options, w io.Writer) error {
	if bundlePath == "" {
		tmp, err := os.MkdirTemp("", "wasmenv-retain-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bundlePath = filepath.Join(tmp, "env.wasm")
		if err := envpkg.Write(bundlePath, final); err != nil {
			return err
		}
	}
	rep, kept, err := retain.GateBundle(ctx, bundlePath, *cfg, opts)
	if rep != nil {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if werr := atomicfile.WriteFile(filepath.Join(out, "retention.json"), append(data, '\n')); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	var lines []byte
	for _, t := range kept {
		line, err := json.Marshal(t)
		if err != nil {
			return err
		}
		lines = append(append(lines, line...), '\n')
	}
	if err := atomicfile.WriteFile(filepath.Join(out, "tasks.jsonl"), lines); err != nil {
		return err
	}
	fmt.Fprintf(w, "retention gate: %d of %d tasks kept (k = %d, %.0f%% of attempts solved), see %s\n",
		len(kept), len(rep.Tasks), rep.K, 100*rep.PassRate(), filepath.Join(out, "retention.json"))
	for _, t := range rep.Tasks {
		if t.Fate != retain.Kept {
			fmt.Fprintf(w, "  %s %s: %s fault: %s\n", t.Fate, t.ID, t.Fault, t.Reason)
		}
	}
	return nil
}
