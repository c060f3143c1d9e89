package dbmodel

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// refScore compares the references inferred from a database read as if it
// declared none with the ones it declares.
type refScore struct{ declared, right, wrong, missed, extra int }

func (s *refScore) add(o refScore) {
	s.declared += o.declared
	s.right += o.right
	s.wrong += o.wrong
	s.missed += o.missed
	s.extra += o.extra
}

// scoreReferences reads path twice, with and without its declarations:
// right (inferred to the declared parent), wrong (to another parent),
// missed (declared, not inferred) and extra (inferred where none is
// declared). Only single-column references count: inference makes no
// other kind.
func scoreReferences(t *testing.T, path string) (refScore, []string) {
	t.Helper()
	decl, err := Open(path, Options{NoInferFK: true})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	inf, err := Open(path, Options{IgnoreDeclaredReferences: true})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var s refScore
	var notes []string
	for _, dt := range decl.Tables {
		it := inf.Table(dt.Name)
		seen := map[string]bool{}
		for _, fk := range dt.ForeignKeys {
			if len(fk.Columns) != 1 {
				continue
			}
			seen[fk.Columns[0]] = true
			s.declared++
			got := it.ForeignKeyOf(fk.Columns[0])
			switch {
			case got == nil:
				s.missed++
			case got.RefTable == fk.RefTable:
				s.right++
			default:
				s.wrong++
				notes = append(notes, dt.Name+"."+fk.Columns[0]+" → "+got.RefTable+", declared "+fk.RefTable)
			}
		}
		for _, fk := range it.ForeignKeys {
			if !seen[fk.Columns[0]] {
				s.extra++
				notes = append(notes, dt.Name+"."+fk.Columns[0]+" → "+fk.RefTable+" (none declared: "+fk.Reason+")")
			}
		}
	}
	return s, notes
}

// TestReferencesRecoveredOnTheCorpus: the tuning corpus, its declarations
// hidden: every recovered reference goes where the declared one does.
func TestReferencesRecoveredOnTheCorpus(t *testing.T) {
	dumps, _ := filepath.Glob("../testdata/corpus/*.sql")
	if len(dumps) == 0 {
		t.Skip("no corpus")
	}
	var total refScore
	for _, d := range dumps {
		path := filepath.Join(t.TempDir(), "db.sqlite")
		conn, err := sqlite3.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Exec(string(text)); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		conn.Close()
		s, notes := scoreReferences(t, path)
		t.Logf("%s: declared %d, right %d, wrong %d, missed %d, extra %d; %s", filepath.Base(d), s.declared, s.right, s.wrong, s.missed, s.extra, strings.Join(notes, "; "))
		total.add(s)
	}
	t.Logf("corpus: declared %d, right %d, wrong %d, missed %d, extra %d", total.declared, total.right, total.wrong, total.missed, total.extra)
	if total.wrong > 0 || total.right == 0 {
		t.Errorf("%d references recovered to the wrong table (%d right)", total.wrong, total.right)
	}
}

// TestReferencesRecoveredOnDir measures the same on every database under
// $REFS_DIR (DIR/<name>/<name>.sqlite, Spider's layout); skipped without
// it.
func TestReferencesRecoveredOnDir(t *testing.T) {
	dir := os.Getenv("REFS_DIR")
	if dir == "" {
		t.Skip("set REFS_DIR")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.sqlite"))
	sort.Strings(paths)
	var total refScore
	dbs := 0
	for _, p := range paths {
		s, notes := scoreReferences(t, p)
		if s.declared+s.extra == 0 {
			continue
		}
		dbs++
		if s.wrong+s.extra > 0 {
			t.Logf("%s: %s", filepath.Base(p), strings.Join(notes, "; "))
		}
		total.add(s)
	}
	t.Logf("%d databases: declared %d, right %d, wrong %d, missed %d, extra %d", dbs, total.declared, total.right, total.wrong, total.missed, total.extra)
}
