package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// defaultSeedDomains are used when neither --seed-domain nor --scenario-file
// is given: everyday domains of the kind AWM's 1,000 scenarios cover.
var defaultSeedDomains = []string{"e-commerce and retail", "healthcare and clinics", "education and schools",
	"banking and personal finance", "travel and bookings", "restaurants and food delivery",
	"libraries and media", "human resources", "real estate and rentals", "events and ticketing",
	"logistics and shipping", "customer support", "fitness and sports clubs", "government services"}

func synthLLMCmd() *cobra.Command {
	var (
		cfg                    llm.Config
		client                 llm.Client
		keyEnv, auth, clock    string
		seedFile, scenarioFile string
		writePrompts           string
		concurrency, retries   int
		timeout                time.Duration
		fl                     synthLLMFleetFlags
	)
	cmd := &cobra.Command{
		Use:   "llm --model MODEL -o OUTDIR [--base-url URL] [--scenarios N | --scenario-file FILE]",
		Short: "Generate environments with an LLM (OpenAI-compatible endpoint), executed, repaired and vetted",
		Long: `Generate environments with any OpenAI-compatible chat-completions endpoint
(OpenAI, vLLM, SGLang, a hosted gateway): scenarios → tasks → schema → sample
data → tool spec → tool tests → Go tool code → verifiers, each stage executed
(SQL in a scratch database, Go through the compiler, tools and tasks in real
episodes) and repaired with the errors fed back, then vetted by a test agent
and a checker. Kept environments are written to OUTDIR/NAME (source) and
OUTDIR/NAME.wasm (bundle), with OUTDIR/report.md. Run again with the same
OUTDIR to resume after a crash or Ctrl-C. See docs/SYNTHESIS.md.

Before any work it checks the API key ($OPENAI_API_KEY, or the variable
--api-key-env names; --api-key-env "" sends none), that the endpoint answers
and that it lists --model.

Without --seed-domain, --seed-file or --scenario-file the seed domains are:
  ` + strings.Join(defaultSeedDomains, "\n  "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if writePrompts != "" {
				if err := llm.WritePrompts(writePrompts); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote the prompts to %s; edit them and pass --prompts %s\n", writePrompts, writePrompts)
				return nil
			}
			if client.Model == "" || cfg.OutDir == "" {
				return fmt.Errorf("--model and -o are required")
			}
			client.APIKey = os.Getenv(keyEnv)
			client.BaseURL = chatapi.BaseURL(client.BaseURL)
			client.Timeout = timeout
			switch {
			case retries < 0:
				return fmt.Errorf("--retries must be 0 or more, not %d", retries)
			case retries == 0:
				client.Retries = llm.NoRetries // zero means zero, not the default
			default:
				client.Retries = retries
			}
			client.OnRetry = retryNotice(cmd.ErrOrStderr(), retries)
			client.SetConcurrency(concurrency)
			cfg.Client = &client
			switch auth {
			case "assumed":
				cfg.AuthAssumed = true
			case "tools":
			default:
				return fmt.Errorf("--auth must be assumed or tools, not %q", auth)
			}
			if clock != "" {
				t, err := time.Parse(time.RFC3339, clock)
				if err != nil {
					return fmt.Errorf("--clock: %v", err)
				}
				cfg.Clock = t
			}
			if seedFile != "" {
				lines, err := readLines(seedFile)
				if err != nil {
					return err
				}
				cfg.Seeds = append(cfg.Seeds, lines...)
			}
			if scenarioFile != "" {
				sc, err := readScenarios(scenarioFile)
				if err != nil {
					return err
				}
				cfg.Scenarios = sc
			}
			if len(cfg.Seeds) == 0 && len(cfg.Scenarios) == 0 {
				cfg.Seeds = defaultSeedDomains
			}
			if cfg.TaskSteps < 0 {
				return fmt.Errorf("--task-steps must be 0 (off) or more")
			}
			if cfg.RetainK < 0 || cfg.RetainMaxTurns < 1 || cfg.RetainRepairs < 0 {
				return fmt.Errorf("--retain-k and --retain-repairs must be 0 (none) or more and --retain-max-turns at least 1")
			}
			if fl.runID != "" && fl.nats == "" {
				return fmt.Errorf("--run-id names a run on NATS: it needs --nats")
			}
			if err := preflight(cmd.Context(), &client, keyEnv); err != nil {
				return err
			}
			cfg.Progress = cmd.ErrOrStderr()
			rep, err := runSynthLLM(cmd, cfg, concurrency, &fl)
			if rep != nil && len(rep.Envs) > 0 {
				rep.WriteMarkdown(cmd.OutOrStdout())
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&client.BaseURL, "base-url", "", "API root of the chat-completions endpoint (default $OPENAI_BASE_URL, else "+chatapi.DefaultBaseURL+")")
	f.StringVar(&client.Model, "model", os.Getenv("WASMENV_SYNTH_MODEL"), "model name ($WASMENV_SYNTH_MODEL)")
	f.StringVar(&keyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable that holds the API key (none sent when empty)")
	f.StringVar(&client.EmbeddingModel, "embedding-model", "", "embedding model for scenario dedup by cosine ≥ 0.85 (default: lexical dedup)")
	f.Float64Var(&client.Temperature, "temperature", 0, "sampling temperature")
	f.IntVar(&client.MaxTokens, "max-tokens", 0, "most tokens per completion (0: the server's default)")
	f.IntVar(&retries, "retries", chatapi.DefaultRetries, "retries of a request after a 429, a 5xx or a timeout, with exponential backoff (0: none)")
	f.DurationVar(&timeout, "request-timeout", 5*time.Minute, "time limit of one request")
	f.IntVar(&concurrency, "concurrency", 8, "most requests in flight at once")
	f.Float64Var(&client.Prices.Input, "price-input", 0, "US$ per million prompt tokens, for the cost columns")
	f.Float64Var(&client.Prices.Output, "price-output", 0, "US$ per million completion tokens")
	f.StringVarP(&cfg.OutDir, "output", "o", "", "output directory: environments, bundles, reports and resumable stage artifacts")
	f.IntVar(&cfg.NumScenarios, "scenarios", 10, "scenarios to generate from the seed domains")
	f.IntVar(&cfg.ScenarioStalls, "scenario-stalls", 10, "stop asking for scenarios after this many requests in a row bring none new")
	f.StringSliceVar(&cfg.Seeds, "seed-domain", nil, "seed domain for the scenarios stage (repeatable)")
	f.StringVar(&seedFile, "seed-file", "", "file of seed domains, one per line")
	f.StringVar(&scenarioFile, "scenario-file", "", "your own scenarios (skips generating them): JSON array or JSONL of {name, title, description}, or lines 'Title: description'")
	f.IntVar(&cfg.TasksPerScenario, "tasks", 10, "tasks per scenario (k)")
	f.IntVar(&cfg.MaxAttempts, "max-attempts", 6, "attempts per stage: the first and up to 5 repairs")
	f.StringVar(&cfg.ToolLanguage, "tool-language", llm.LanguageGo, "language of the tool code the code stage asks for: go or python (docs/PYTHON.md)")
	f.StringVar(&auth, "auth", "assumed", "assumed: the user is already authenticated (AWM); tools: tools authenticate the user (τ-bench)")
	f.StringVar(&clock, "clock", "", "environment clock, RFC 3339 (default 2024-06-03T09:00:00Z)")
	f.IntVar(&cfg.ProbeRounds, "probe-rounds", 3, "rounds of the test agent and checker (N)")
	f.Float64Var(&cfg.PassRate, "pass-rate", 0.85, "probe pass rate an environment needs (EnvScaler: 0.85)")
	f.IntVar(&cfg.RetainK, "retain-k", 4, "retention gate: the model plays each task this many times as the agent before the environment is kept; unsolved tasks are examined, dropped at the environment's fault (0: no gate)")
	f.IntVar(&cfg.RetainMaxTurns, "retain-max-turns", 20, "assistant turns per attempt of the retention gate")
	// The gate's repairs and simulated user (issue 36).
	f.IntVar(&cfg.RetainRepairs, "retain-repairs", 2, "times a task the gate's examiner finds at the environment's fault goes back to the verifiers stage with the examiner's reason, and is played again, before it is dropped (0: dropped at once)")
	f.BoolVar(&cfg.RetainUser, "retain-user", false, "a simulated user (the model, as rollout --user plays it) opens and answers each attempt of the retention gate, instead of the instruction as the user's opening")
	// Tasks of depth (issue 36, round 9).
	f.IntVar(&cfg.TaskSteps, "task-steps", 0, "ask for tasks that each need at least N tool calls and a decision from what the agent reads; a task whose ground truth makes fewer is fed back once, then dropped; the rules state the application's clock (0: off, the prompts of earlier runs)")
	f.IntVar(&cfg.Jobs, "jobs", 4, "scenarios generated at once")
	f.StringVar(&cfg.PromptDir, "prompts", "", "directory of edited prompt templates and schemas (see --write-prompts)")
	f.StringVar(&writePrompts, "write-prompts", "", "copy the built-in prompts to this directory for editing, then exit")
	fl.add(cmd)
	return cmd
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// readScenarios reads a JSON array, JSONL, or "Title: description" lines.
func readScenarios(path string) ([]llm.Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(string(b))
	var out []llm.Scenario
	if strings.HasPrefix(text, "[") {
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return out, nil
	}
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		var s llm.Scenario
		if strings.HasPrefix(l, "{") {
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
		} else {
			title, desc, _ := strings.Cut(l, ":")
			s = llm.Scenario{Name: title, Title: strings.TrimSpace(title), Description: strings.TrimSpace(desc)}
		}
		if s.Title == "" && s.Name == "" {
			return nil, fmt.Errorf("%s:%d: a scenario needs a title or a name", path, i+1)
		}
		if s.Title == "" {
			s.Title = s.Name
		}
		if s.Name == "" {
			s.Name = s.Title
		}
		out = append(out, s)
	}
	return out, nil
}
