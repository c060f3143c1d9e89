// Command taubench runs the τ-bench benchmark of one domain: the Python
// baseline (bench/taubench/baseline.py for retail, baseline_airline.py for
// airline: τ-bench's approach) and wasmenv, one after the other on the same
// machine, over all reference episodes, and writes a markdown report and,
// with -json, the raw figures.
//
//	go run ./bench/taubench/cmd/taubench -out docs/BENCHMARKS-taubench.md -json bench/taubench/results.json
//	go run ./bench/taubench/cmd/taubench -env envs/taubench-airline -section \
//	    -out docs/BENCHMARKS-taubench.md -json bench/taubench/results-airline.json
//
// With -section the report is a section of -out, between the markers
// <!-- begin taubench-DOMAIN --> and <!-- end taubench-DOMAIN -->: replaced
// there, or appended when the file has none.
//
// Without -bundle the environment is built in memory from -env. With
// -render FILE.json it only re-renders the markdown of an earlier run.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/bench/taubench"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "taubench:", err)
		os.Exit(1)
	}
}

func run() error {
	root := moduleRoot()
	bundle := flag.String("bundle", "", "bundle file (default: build -env in memory)")
	envDir := flag.String("env", filepath.Join(root, "envs", "taubench-retail"), "environment directory (data, reference episodes)")
	python := flag.String("python", "python3", "Python interpreter")
	script := flag.String("script", "", "the Python baseline (default: baseline.py for retail, baseline_airline.py for airline)")
	section := flag.Bool("section", false, "write the report as this domain's section of -out")
	repeat := flag.Int("repeat", 5, "timed passes of reset + calls over all episodes, per side")
	stateRepeat := flag.Int("state-repeat", 1, "passes timing the state hash and reward, per side")
	out := flag.String("out", "", "markdown report (default: stdout)")
	jsonOut := flag.String("json", "", "raw figures as JSON (optional)")
	render := flag.String("render", "", "only render the markdown from a JSON file written by -json")
	engine := flag.String("engine", "", "WebAssembly engine: wazero (default) or wasmtime (a build with -tags wasmtime)")
	replayExe := flag.String("replay-exe", "", "also time `wasmenv replay` of the episodes end to end, as a process, with this wasmenv executable")
	replayCopies := flag.Int("replay-copies", 11, "with -replay-exe: copies of the reference episodes in the largest replay input")
	isolated := flag.Int("isolated", 0, "only time each wasmenv call on its own, best of N runs (no Python), and print per tool the median of those bests")
	flag.Parse()
	if *render != "" {
		return renderOnly(*render, *out, *section)
	}
	domain := taubench.Domain(*envDir)
	if *script == "" {
		name := "baseline.py"
		if domain != "retail" {
			name = "baseline_" + domain + ".py"
		}
		*script = filepath.Join(root, "bench", "taubench", name)
	}

	ctx := context.Background()
	refs := taubench.RefFiles(*envDir)
	eps, err := taubench.LoadRefs(refs...)
	if err != nil {
		return err
	}
	if *isolated > 0 {
		return printIsolated(ctx, *bundle, *envDir, eps, *isolated)
	}
	calls := 0
	for _, ep := range eps {
		calls += len(ep.Calls)
	}
	rep := &taubench.Report{
		Domain:      domain,
		Date:        time.Now().UTC().Format("2006-01-02 15:04 MST"),
		Command:     "go run ./bench/taubench/cmd/taubench " + strings.Join(os.Args[1:], " "),
		Machine:     machine(),
		Episodes:    len(eps),
		Calls:       calls,
		Repeat:      *repeat,
		StateRepeat: *stateRepeat,
	}
	rep.Machine.LoadStart = loadavg()

	fmt.Fprintf(os.Stderr, "python baseline: %d episodes, %d calls, %d repeats...\n", len(eps), calls, *repeat)
	rep.Python, err = taubench.RunPython(ctx, taubench.PyOptions{
		Python: *python, Script: *script, DataDir: filepath.Join(*envDir, "data"), Refs: refs,
		Repeat: *repeat, StateRepeat: *stateRepeat, Stderr: os.Stderr,
	})
	if err != nil {
		return err
	}

	fmt.Fprintf(os.Stderr, "wasmenv: loading the bundle...\n")
	env, loadTime, err := taubench.LoadEnvOn(ctx, *engine, *bundle, *envDir)
	if err != nil {
		return err
	}
	defer env.Close()
	m := env.Bundle.Manifest
	rep.Bundle = fmt.Sprintf("%s %s (hash %s)", m.Name, m.Version, env.Bundle.Hash)
	if *engine != "" {
		rep.Bundle += ", engine " + *engine
	}
	rep.Go, err = taubench.RunGo(ctx, env, int64(loadTime), eps, *repeat, *stateRepeat)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wasmenv verification: %s\n", rep.Go.Verify.String())
	if *replayExe != "" {
		fmt.Fprintf(os.Stderr, "wasmenv replay end to end: %d copies of the episodes...\n", *replayCopies)
		if rep.EndToEnd, err = endToEnd(ctx, *replayExe, *bundle, env, eps, *replayCopies); err != nil {
			return err
		}
	}
	rep.Machine.LoadEnd = loadavg()

	if *jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if err := writeMarkdown(rep, *out, *section); err != nil {
		return err
	}
	var errs []error
	for side, v := range map[string]taubench.Verify{"python baseline": rep.Python.Verify, "wasmenv": rep.Go.Verify} {
		if !v.OK {
			errs = append(errs, fmt.Errorf("%s does not match the references: %s; first mismatches: %v", side, v.String(), head(v.Mismatches, 5)))
		}
	}
	return errors.Join(errs...)
}

// printIsolated prints taubench.Isolated's figures, one tool a line.
func printIsolated(ctx context.Context, bundlePath, envDir string, eps []taubench.RefEpisode, n int) error {
	env, _, err := taubench.LoadEnv(ctx, bundlePath, envDir)
	if err != nil {
		return err
	}
	defer env.Close()
	per, err := taubench.Isolated(ctx, env, eps, n)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(per))
	for name := range per {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Printf("%s, %s: per tool, median over its reference calls of the best of %d runs (load average %s)\n",
		env.Bundle.Manifest.Name, env.Bundle.Hash, n, loadavg())
	for _, name := range names {
		fmt.Printf("%-34s %8.1f µs\n", name, float64(per[name].Nanoseconds())/1e3)
	}
	return nil
}

// writeMarkdown writes the report to path, or stdout when path is empty;
// with section, as the domain's section of the file at path.
func writeMarkdown(rep *taubench.Report, path string, section bool) error {
	var buf bytes.Buffer
	if section {
		rep.MarkdownSection(&buf)
	} else {
		rep.Markdown(&buf)
	}
	if path == "" {
		_, err := os.Stdout.Write(buf.Bytes())
		return err
	}
	data := buf.Bytes()
	if section {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		data = spliceSection(old, "taubench-"+rep.DomainName(), buf.Bytes())
	}
	// write to a temporary file and rename, so a failure leaves the old report
	tmp, err := os.CreateTemp(filepath.Dir(path), ".taubench-*.md")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// spliceSection replaces the text between <!-- begin NAME --> and
// <!-- end NAME --> in doc with section, or appends the marked section.
func spliceSection(doc []byte, name string, section []byte) []byte {
	begin, end := []byte("<!-- begin "+name+" -->\n"), []byte("<!-- end "+name+" -->\n")
	marked := append(append(append([]byte{}, begin...), section...), end...)
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		if len(doc) > 0 && !bytes.HasSuffix(doc, []byte("\n\n")) {
			doc = append(doc, '\n')
		}
		return append(doc, marked...)
	}
	out := append([]byte{}, doc[:i]...)
	out = append(out, marked...)
	return append(out, doc[j+len(end):]...)
}

func renderOnly(jsonPath, out string, section bool) error {
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		return err
	}
	var rep taubench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("%s: %v", jsonPath, err)
	}
	if rep.Python == nil || rep.Go == nil {
		return fmt.Errorf("%s: not a report written by -json", jsonPath)
	}
	return writeMarkdown(&rep, out, section)
}

func head(s []string, n int) []string { return s[:min(n, len(s))] }

// moduleRoot is the directory holding go.mod, walking up from the working
// directory; "." when there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, d); err == nil {
				return rel
			}
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

func machine() taubench.Machine {
	m := taubench.Machine{CPU: "unknown CPU", Cores: goruntime.NumCPU(), Go: goruntime.Version()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	m.OS = goruntime.GOOS + "/" + goruntime.GOARCH
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += " (Linux " + strings.TrimSpace(string(rel)) + ")"
	}
	return m
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// endToEnd runs taubench.RunEndToEnd on the bundle file, written to a
// temporary file when the environment was built in memory.
func endToEnd(ctx context.Context, exe, bundle string, env *runtime.Env, eps []taubench.RefEpisode, copies int) (*taubench.EndToEnd, error) {
	if bundle == "" {
		dir, err := os.MkdirTemp("", "taubench-bundle")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bundle = filepath.Join(dir, env.Bundle.Manifest.Name+".wasm")
		if err := envpkg.Write(bundle, env.Bundle); err != nil {
			return nil, err
		}
	}
	return taubench.RunEndToEnd(ctx, exe, bundle, eps, copies)
}
