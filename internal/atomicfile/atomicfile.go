package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Perm is the mode of every committed file.
const Perm os.FileMode = 0o644

// ErrClosed is returned by Write and Commit on a File already committed or
// aborted.
var ErrClosed = errors.New("atomicfile: file already committed or aborted")

// File is a file being written to a path. Nothing appears at the path until
// Commit; Abort (or a failed Commit) leaves the path as it was.
type File struct {
	f    *os.File
	path string
	done bool
}

// Create starts a file that Commit will rename to path. The directory of
// path must exist.
// Its errors name path, never the temporary file the caller did not ask
// for.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("write %s: the folder %s does not exist", path, filepath.Dir(path))
		}
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{f: f, path: path}, nil
}

// Write implements io.Writer.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, ErrClosed
	}
	return f.f.Write(p)
}

// Path is where Commit puts the file.
func (f *File) Path() string { return f.path }

// Commit syncs the file, gives it mode Perm and renames it to its path. On
// any error the temporary file is removed and the path left as it was.
func (f *File) Commit() error {
	if f.done {
		return ErrClosed
	}
	f.done = true
	tmp := f.f.Name()
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, Perm) // CreateTemp made it private
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abort drops the file. It is safe to call after Commit (it does nothing)
// and more than once, so `defer f.Abort()` suits every exit path.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// Write writes path with what fill writes, atomically: if fill returns an
// error nothing changes at path.
func Write(path string, fill func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
