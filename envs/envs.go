// Package envs ships the example environments as source, embedded in the
// wasmenv binary so that `wasmenv demo` and `wasmenv build --example NAME`
// work with no checkout.
package envs

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

//go:embed *
var files embed.FS

// Names lists the embedded environments (directories with an env.yaml).
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if _, err := fs.Stat(files, path.Join(e.Name(), "env.yaml")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Extract writes the source of environment name into dir.
func Extract(name, dir string) error {
	sub, err := fs.Sub(files, name)
	if err != nil {
		return err
	}
	if _, err := fs.Stat(sub, "env.yaml"); err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
