package main

import (
	"encoding/json"
	"fmt"
	neturl "net/url"
	"unicode"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

func init() { register(exportCmd) }

func exportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a bundle's tools in another framework's configuration format",
	}
	cmd.AddCommand(exportVerlToolsCmd())
	return cmd
}

// verl's tools YAML (verl/tools/utils/tool_registry.py reads it): one
// entry per tool, class_name, config (type native plus what the class
// reads), tool_schema as verl's OpenAIFunctionToolSchema takes it.
type verlToolsFile struct {
	Tools []verlTool `yaml:"tools"`
}

type verlTool struct {
	ClassName  string         `yaml:"class_name"`
	Config     map[string]any `yaml:"config"`
	ToolSchema verlSchema     `yaml:"tool_schema"`
}

type verlSchema struct {
	Type     string       `yaml:"type"`
	Function verlFunction `yaml:"function"`
}

type verlFunction struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Parameters  verlParams `yaml:"parameters"`
}

type verlParams struct {
	Type       string              `yaml:"type"`
	Properties map[string]verlProp `yaml:"properties"`
	Required   []string            `yaml:"required"`
}

type verlProp struct {
	Type        string   `yaml:"type"`
	Description string   `yaml:"description,omitempty"`
	Enum        []string `yaml:"enum,omitempty"`
}

func exportVerlToolsCmd() *cobra.Command {
	var url, tokenEnv, out, interaction string
	cmd := &cobra.Command{
		Use:   "verl-tools BUNDLE",
		Short: "Write verl's tools YAML for a bundle served by `wasmenv serve`",
		Long: "Write the tools YAML that verl's multi-turn rollout reads\n" +
			"(actor_rollout_ref.rollout.multi_turn.tool_config_path): one\n" +
			"wasmenv_client.verl.WasmenvTool per tool of BUNDLE, reaching the server at --url.\n" +
			"verl's schema model keeps a type, a description and string choices per\n" +
			"parameter; nested shapes are left out (docs/INTEGRATIONS.md).\n\n" +
			"--interaction FILE also writes verl's interaction YAML\n" +
			"(multi_turn.interaction_config_path): wasmenv_client.verl.WasmenvInteraction,\n" +
			"which scores each trajectory with its final answer (and talks for the\n" +
			"simulated user of a server started with --user).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkServerURL(url); err != nil {
				return err
			}
			b, err := envpkg.Read(args[0])
			if err != nil {
				return withPath(args[0], err)
			}
			f, err := verlTools(b.Manifest.Name, b.Manifest.Tools, url, tokenEnv)
			if err != nil {
				return err
			}
			data, err := yaml.Marshal(f)
			if err != nil {
				return err
			}
			head := fmt.Sprintf("# verl tools for the wasmenv environment %s (wasmenv export verl-tools).\n"+
				"# Needs: pip install ./clients/python (wasmenv_client) beside verl; wasmenv serve at %s.\n", b.Manifest.Name, url)
			data = append([]byte(head), data...)
			if interaction != "" {
				idata, err := yaml.Marshal(verlInteraction(b.Manifest.Name, url, tokenEnv))
				if err != nil {
					return err
				}
				head := fmt.Sprintf("# verl interaction for the wasmenv environment %s (wasmenv export verl-tools --interaction):\n"+
					"# the dataset rows name it in extra_info.interaction_kwargs {name: %s, task, seed}.\n", b.Manifest.Name, verlInteractionName)
				if err := atomicfile.WriteFile(interaction, append([]byte(head), idata...)); err != nil {
					return err
				}
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			return atomicfile.WriteFile(out, data)
		},
	}
	cmd.Flags().StringVar(&interaction, "interaction", "", "also write verl's interaction YAML (the final answer's score) to this file")
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:8080", "where wasmenv serve serves the bundle")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "environment variable holding the server's bearer token (the token itself is never written)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default: stdout)")
	return cmd
}

// checkServerURL refuses a --url that is not a plain http(s) URL: it is
// written into the YAML's header comment, where a line break (any control
// character, or a Unicode line or paragraph separator, which YAML 1.1 reads
// as one) would start top-level keys of the reader's choosing.
func checkServerURL(s string) error {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("--url %q holds a control or format character", s)
		}
	}
	u, err := neturl.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q: want an http:// or https:// URL with a host", s)
	}
	return nil
}

// verlInteractionName is the interaction's name in verl's registry and in
// the rows' interaction_kwargs (wasmenv_client.verl.INTERACTION_NAME).
const verlInteractionName = "wasmenv"

// verlInteractionFile is verl's interaction YAML
// (verl/interactions/utils/interaction_registry.py reads it).
type verlInteractionFile struct {
	Interaction []verlInteractionEntry `yaml:"interaction"`
}

type verlInteractionEntry struct {
	Name      string         `yaml:"name"`
	ClassName string         `yaml:"class_name"`
	Config    map[string]any `yaml:"config"`
}

func verlInteraction(env, url, tokenEnv string) *verlInteractionFile {
	cfg := map[string]any{"url": url, "env": env}
	if tokenEnv != "" {
		cfg["token_env"] = tokenEnv
	}
	return &verlInteractionFile{Interaction: []verlInteractionEntry{{
		Name: verlInteractionName, ClassName: "wasmenv_client.verl.WasmenvInteraction", Config: cfg}}}
}

func verlTools(env string, tools []envpkg.Tool, url, tokenEnv string) (*verlToolsFile, error) {
	f := &verlToolsFile{Tools: []verlTool{}}
	for _, t := range tools {
		s, err := verlSchemaOf(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		cfg := map[string]any{"type": "native", "url": url, "env": env}
		if tokenEnv != "" {
			cfg["token_env"] = tokenEnv
		}
		f.Tools = append(f.Tools, verlTool{ClassName: "wasmenv_client.verl.WasmenvTool", Config: cfg, ToolSchema: s})
	}
	return f, nil
}

// verlSchemaOf projects a tool's JSON Schema onto verl's model, by the
// rule of wasmenv_client.verl.verl_schema: one type string per property
// (the first non-null of a list, else "string"), string enums only,
// required always a list.
func verlSchemaOf(t envpkg.Tool) (verlSchema, error) {
	var in struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &in); err != nil {
			return verlSchema{}, err
		}
	}
	props := map[string]verlProp{}
	for name, raw := range in.Properties {
		var p struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		}
		json.Unmarshal(raw, &p) // a property that is not an object keeps the defaults
		vp := verlProp{Type: "string", Description: p.Description}
		switch ty := p.Type.(type) {
		case string:
			vp.Type = ty
		case []any:
			for _, x := range ty {
				if s, ok := x.(string); ok && s != "null" {
					vp.Type = s
					break
				}
			}
		}
		strs := make([]string, 0, len(p.Enum))
		for _, v := range p.Enum {
			if s, ok := v.(string); ok {
				strs = append(strs, s)
			}
		}
		if len(strs) > 0 && len(strs) == len(p.Enum) {
			vp.Enum = strs
		}
		props[name] = vp
	}
	req := in.Required
	if req == nil {
		req = []string{}
	}
	return verlSchema{Type: "function", Function: verlFunction{Name: t.Name, Description: t.Description,
		Parameters: verlParams{Type: "object", Properties: props, Required: req}}}, nil
}
