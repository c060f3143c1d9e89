package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
)

type inspectOut struct {
	Manifest envpkg.Manifest `json:"manifest"`
	Hash     string          `json:"hash"`
	Sizes    sizes           `json:"sizes"`
	Tasks    int             `json:"tasks"`
}

type sizes struct {
	Bundle   int64 `json:"bundle"`
	Module   int   `json:"module"`
	DB       int   `json:"db"`
	DBZstd   int64 `json:"db_zstd"`
	Manifest int   `json:"manifest"`
	Tasks    int   `json:"tasks"`
}

func init() { register(inspectCmd) }

func inspectCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show a bundle's manifest, tools, tasks, sizes and hash",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			b, err := envpkg.Decode(data)
			if err != nil {
				return withPath(args[0], err)
			}
			secs, _ := envpkg.SectionSizes(data)
			o := inspectOut{Manifest: b.Manifest, Hash: b.Hash, Tasks: len(b.Tasks), Sizes: sizes{
				Bundle: b.Size, Module: len(b.Module), DB: len(b.DB), DBZstd: b.DBZstd,
				Manifest: secs[envpkg.SectionManifest], Tasks: secs[envpkg.SectionTasks]}}
			w := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(w, o)
			}
			m := b.Manifest
			fmt.Fprintf(w, "%s %s  (hash %s, built with %s)\n%s\n\n", m.Name, m.Version, b.Hash, m.Toolchain,
				wrapText(m.Description, inspectWidth, ""))
			fmt.Fprintf(w, "size: %s bundle = %s tool module + %s database (%s raw)\n      + %s manifest + %s tasks\n",
				human(b.Size), human(int64(len(b.Module))), human(b.DBZstd), human(int64(len(b.DB))),
				human(int64(o.Sizes.Manifest)), human(int64(o.Sizes.Tasks)))
			fmt.Fprintf(w, "limits: %d ms per call, %d MiB memory, %d bytes output\n\n", m.Limits.CallTimeoutMS, m.Limits.MemoryMB, m.Limits.MaxOutputBytes)
			fmt.Fprintf(w, "%d tools (schemas: --json):\n", len(m.Tools))
			for _, t := range m.Tools {
				fmt.Fprintln(w, wrapText(t.Name+argSummary(t.InputSchema), inspectWidth, "      "))
				if d := firstLine(t.Description); d != "" {
					fmt.Fprintln(w, "    "+clipText(d, inspectWidth-4))
				}
			}
			fmt.Fprintf(w, "\n%d tasks", len(b.Tasks))
			if len(m.Export) > 0 {
				names := make([]string, len(m.Export))
				for i, c := range m.Export {
					names[i] = c.Name
				}
				fmt.Fprintf(w, "; export view: %s", strings.Join(names, ", "))
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// argSummary renders a schema's properties in declaration order, optional
// ones marked: (a, b?, c).
func argSummary(schema json.RawMessage) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "()"
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	dec.Token() // {
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		var skip json.RawMessage
		dec.Decode(&skip)
		if !slices.Contains(s.Required, name) {
			name += "?"
		}
		names = append(names, name)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// inspectWidth is the longest line inspect prints (a tool's name alone
// may be longer).
const inspectWidth = 100

// wrapText breaks s at spaces into lines of at most width characters, the
// lines after the first starting with indent.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// clipText cuts s to width characters, marking the cut with "…".
func clipText(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width-1]) + "…"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
