package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// A synthesis run turns a batch of SQLite databases into environments,
// one job per database: the worker runs synth.FromDB, the code of `wasmenv
// synth from-db`, and its result is the environment source directory as a
// tar (tar.go), stored in the object store BucketEnvs under the SHA-256 of
// its bytes. Databases travel through BucketBundles as "db-<SHA-256>".

// SynthSpec is one synthesis job: the database and synth.Options'
// settings that travel (never a path of the driver's machine).
type SynthSpec struct {
	Source string `json:"source"` // the database's object: "db-" + hex SHA-256 of its bytes
	// File is the database's file name: it names the environment, as for
	// `synth from-db`, unless Name does.
	File        string   `json:"file"`
	Name        string   `json:"name,omitempty"`
	Tasks       int      `json:"tasks"`
	Seed        int64    `json:"seed"`
	MaxChain    int      `json:"max_chain,omitempty"`
	WriteShare  *float64 `json:"write_share,omitempty"`
	ReadOnly    bool     `json:"read_only,omitempty"`
	Toolset     string   `json:"toolset,omitempty"` // synth.Options.Toolset: "domain" or "crud" ("" is crud)
	MaxRows     int      `json:"max_rows,omitempty"`
	StateReward bool     `json:"state_reward,omitempty"`
}

// Bounds of what a synthesis job may ask for.
const (
	MaxSynthTasks = 100000
	MaxSynthChain = 64
	MaxSynthRows  = 10_000_000
)

func (s *SynthSpec) check() error {
	switch {
	case !strings.HasPrefix(s.Source, "db-") || !isHex(s.Source[3:], 64):
		return errorf(CodeBadInput, nil, "synthesis source %q is not a database's content name", truncate(s.Source, 80))
	case s.File == "" || len(s.File) > 255 || strings.ContainsAny(s.File, `/\`) || s.File == "." || s.File == "..":
		return errorf(CodeBadInput, nil, "synthesis file name %q is not a plain file name", truncate(s.File, 80))
	case s.Name != "" && !envpkg.ValidEnvName(s.Name):
		return errorf(CodeBadInput, nil, "environment name %q: want 1 to 64 of a-z 0-9 -", truncate(s.Name, 80))
	case !envpkg.ValidEnvName(s.EnvName()):
		return errorf(CodeBadInput, nil, "file name %q gives no environment name: give one", truncate(s.File, 80))
	case s.Tasks < 1 || s.Tasks > MaxSynthTasks || s.MaxChain < 0 || s.MaxChain > MaxSynthChain ||
		s.MaxRows < 0 || s.MaxRows > MaxSynthRows || s.WriteShare != nil && !(*s.WriteShare >= 0 && *s.WriteShare <= 1):
		return errorf(CodeBadInput, nil, "synthesis settings out of range: tasks %d (1 to %d), max chain %d (0 to %d), max rows %d (0 to %d), write share 0 to 1",
			s.Tasks, MaxSynthTasks, s.MaxChain, MaxSynthChain, s.MaxRows, MaxSynthRows)
	}
	return nil
}

// EnvName is the environment's name: Name, else the file's as `synth
// from-db` takes it (library.sqlite gives "library").
func (s *SynthSpec) EnvName() string {
	if s.Name != "" {
		return s.Name
	}
	return emit.EnvName(strings.TrimSuffix(s.File, filepath.Ext(s.File)))
}

// SynthSource is a database to synthesize from: its file name and bytes.
type SynthSource struct {
	File string
	Data []byte
}

// ReadSynthSource reads a SQLite database file. The fleet carries
// databases only; a bundle, an environment directory or a JSON directory
// is synthesized locally.
func ReadSynthSource(path string) (*SynthSource, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf(CodeBadInput, err, "database")
	}
	if !bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		return nil, errorf(CodeBadInput, nil, "%s is not a SQLite database (the fleet synthesizes from database files only)", path)
	}
	return &SynthSource{File: filepath.Base(path), Data: data}, nil
}

// PlanSynth makes one job per source with the settings of base; two
// sources that would write the same environment are refused.
func PlanSynth(sources []*SynthSource, base SynthSpec) ([]GroupRef, []*SynthSpec, error) {
	if len(sources) > 1 && base.Name != "" {
		return nil, nil, errorf(CodeBadInput, nil, "one name for %d databases: leave the name to each file", len(sources))
	}
	var refs []GroupRef
	var specs []*SynthSpec
	names := map[string]string{}
	for i, src := range sources {
		s := base
		sum := sha256.Sum256(src.Data)
		s.Source, s.File = "db-"+hex.EncodeToString(sum[:]), src.File
		if err := s.check(); err != nil {
			return nil, nil, err
		}
		if other, ok := names[s.EnvName()]; ok {
			return nil, nil, errorf(CodeBadInput, nil, "%s and %s both make the environment %q", other, src.File, s.EnvName())
		}
		names[s.EnvName()] = src.File
		refs = append(refs, GroupRef{Index: i, Env: s.EnvName()})
		specs = append(specs, &s)
	}
	if len(refs) == 0 {
		return nil, nil, errorf(CodeBadInput, nil, "no database to synthesize from")
	}
	return refs, specs, nil
}

// RunSynthLocal runs the synthesis jobs in this process, parallel at
// once, and hands each environment's tar to out in plan order.
func RunSynthLocal(ctx context.Context, sources []*SynthSource, specs []*SynthSpec, refs []GroupRef, parallel int, out Output, progress func(done, total int)) error {
	_, err := runLocal(ctx, refs, parallel, out, progress, func(ctx context.Context, ref GroupRef) (*Result, error) {
		return runSynth(ctx, sources[ref.Index].Data, specs[ref.Index], ref.Index)
	})
	return err
}

// RunSynth runs the synthesis jobs on the fleet (see Run).
func (d *Driver) RunSynth(ctx context.Context, sources []*SynthSource, specs []*SynthSpec, refs []GroupRef, out Output) error {
	upload := func(ctx context.Context, s *store) error {
		for i, src := range sources {
			if err := s.putOnce(ctx, s.bundles, specs[i].Source, src.Data); err != nil {
				return errorf(CodeUnavailable, err, "upload %s", src.File)
			}
		}
		d.logf("%d databases in the object store", len(sources))
		return nil
	}
	_, err := d.drive(ctx, refs, out, upload, func(ref GroupRef) *Job { return &Job{GroupRef: ref, Synth: specs[ref.Index]} })
	return err
}

// runSynthJob fetches a synthesis job's database and runs it.
func (w *Worker) runSynthJob(ctx context.Context, job *Job) (*Result, error) {
	var data []byte
	err := retry(ctx, func(ctx context.Context) (err error) {
		data, err = w.store.bundles.GetBytes(ctx, job.Synth.Source) // the object store checks its digest
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, errorf(CodeBadInput, err, "database %s is not in the object store %s", job.Synth.Source, BucketBundles)
	}
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "fetch database %s", job.Synth.Source)
	}
	if sum := sha256.Sum256(data); "db-"+hex.EncodeToString(sum[:]) != job.Synth.Source {
		return nil, errorf(CodeBadInput, nil, "object %s does not hold the database it names", job.Synth.Source)
	}
	return runSynth(ctx, data, job.Synth, job.Index)
}

// runSynth is `wasmenv synth from-db` over data in a directory of its
// own; the result is the environment directory as a tar.
func runSynth(ctx context.Context, data []byte, spec *SynthSpec, index int) (*Result, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "wasmenv-synth-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, spec.File)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "out", spec.EnvName())
	_, err = synth.FromDB(ctx, src, synth.Options{Out: out, Name: spec.Name, Tasks: spec.Tasks, Seed: spec.Seed,
		MaxChain: spec.MaxChain, WriteShare: spec.WriteShare, ReadOnly: spec.ReadOnly, Toolset: spec.Toolset, MaxRows: spec.MaxRows,
		StateReward: spec.StateReward})
	if err != nil {
		return nil, err
	}
	tarball, err := tarDir(filepath.Join(dir, "out"))
	if err != nil {
		return nil, err
	}
	return &Result{Index: index, Lines: tarball, Summary: &rl.Summary{}}, nil
}

// putOnce stores data under name unless the bucket has it with these very
// bytes (its SHA-256 digest): an object of that name with other bytes (a
// bad member of the fleet that wrote first) is replaced, not taken for it.
func (s *store) putOnce(ctx context.Context, o jetstream.ObjectStore, name string, data []byte) error {
	var info *jetstream.ObjectInfo
	var err error
	retry(ctx, func(ctx context.Context) error { info, err = o.GetInfo(ctx, name); return err })
	switch {
	case err == nil && info.Digest == jetstream.GetObjectDigestValue(digestOf(data)):
		return nil
	case err != nil && !errors.Is(err, jetstream.ErrObjectNotFound):
		return err
	}
	return s.putObject(ctx, o, name, data)
}

// digestOf is data's SHA-256, as the object store digests an object.
func digestOf(data []byte) hash.Hash {
	h := sha256.New()
	h.Write(data)
	return h
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
