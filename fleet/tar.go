package fleet

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// tarDir packs the directories and regular files under root, in lexical
// order, with no owner, times or modes beyond 0755/0644: the same tree
// gives the same bytes wherever it was written.
func tarDir(root string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		switch {
		case d.IsDir():
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
			return tw.WriteHeader(h)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(data))
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		}
		return errors.New("synthesis wrote " + rel + ", which is neither a file nor a directory")
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaxEnvTar bounds the bytes one environment's tar may unpack to.
const MaxEnvTar = 1 << 30

// untar unpacks a tar of one top directory into dir/<top> whole: into a
// directory beside it first, renamed at the end. It returns the top
// directory's name. Entries that leave it, links and devices are refused;
// when want is not "", so is a top directory of another name, and dir/want
// must not exist: a result never replaces what this run did not write.
func untar(data []byte, dir, want string) (string, error) {
	tr := tar.NewReader(bytes.NewReader(data))
	var top, tmp string
	var total int64
	fail := func(err error) (string, error) {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return "", errorf(CodeLost, err, "environment archive")
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		first, _, _ := strings.Cut(name, "/")
		if name == "" || path.Clean(name) != name || strings.HasPrefix(name, "/") || first == ".." || first == "." ||
			strings.Contains(name, `\`) || !validEnvDir(first) {
			return fail(errors.New("entry " + truncate(h.Name, 80) + " is not a path inside one environment directory"))
		}
		if top == "" {
			top = first
			if want != "" && top != want {
				return fail(errors.New("its directory " + truncate(top, 64) + " is not the job's, " + want))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fail(err)
			}
			if tmp, err = os.MkdirTemp(dir, "."+top+".part-"); err != nil {
				return fail(err)
			}
		} else if first != top {
			return fail(errors.New("entries of two directories, " + top + " and " + truncate(first, 64)))
		}
		target := filepath.Join(tmp, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fail(err)
			}
		case tar.TypeReg:
			if total += h.Size; h.Size < 0 || total > MaxEnvTar {
				return fail(errors.New("larger than 1 GiB"))
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return fail(err)
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return fail(err)
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fail(err)
			}
		default:
			return fail(errors.New("entry " + truncate(h.Name, 80) + " is not a file or a directory"))
		}
	}
	if top == "" {
		return fail(errors.New("empty"))
	}
	final := filepath.Join(dir, top)
	if want != "" {
		if _, err := os.Lstat(final); err == nil {
			return fail(errors.New(final + " exists, and this run did not write it"))
		}
	}
	if err := os.Rename(filepath.Join(tmp, top), final); err != nil {
		return fail(err)
	}
	os.RemoveAll(tmp)
	return top, nil
}

// validEnvDir reports whether s can be an environment's directory name.
func validEnvDir(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// CreateSynthOutput writes each environment of a synthesis run into dir
// (dir/<name>, whole), refs in plan order: a job's archive must hold its
// own environment's directory, and a directory already in dir is never
// replaced (refused up front; one that appears meanwhile makes the job's
// archive refused). Abort removes the environments it wrote.
func CreateSynthOutput(dir string, refs []GroupRef) (Output, error) {
	o := &synthOutput{dir: dir}
	for _, r := range refs {
		if _, err := os.Lstat(filepath.Join(dir, r.Env)); err == nil {
			return nil, errorf(CodeBadInput, nil, "%s exists: a batch writes new environment directories only (remove it, or choose another -o)", filepath.Join(dir, r.Env))
		}
		o.names = append(o.names, r.Env)
	}
	return o, nil
}

type synthOutput struct {
	dir     string
	names   []string // by plan position
	written []string
}

func (o *synthOutput) WriteGroup(tarball []byte) error {
	if len(o.written) >= len(o.names) {
		return errorf(CodeLost, nil, "more environments than planned")
	}
	name, err := untar(tarball, o.dir, o.names[len(o.written)])
	if err != nil {
		return err
	}
	o.written = append(o.written, name)
	return nil
}

func (o *synthOutput) Close() error { return nil }

func (o *synthOutput) Abort() {
	for _, n := range o.written {
		os.RemoveAll(filepath.Join(o.dir, n))
	}
	o.written = nil
}
