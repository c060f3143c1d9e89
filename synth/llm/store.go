package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// store keeps each stage's accepted output on disk, keyed by a hash of
// everything that determines it (stage, prompt and schema text, model,
// scenario, rendered messages), so a crashed or interrupted run resumes
// without asking the model again. Files are written to a temporary name and
// renamed, so a crash never leaves a half-written artifact.
type store struct{ dir string }

func (s store) key(parts ...any) string {
	h := xxhash.New()
	for _, p := range parts {
		b, _ := json.Marshal(p)
		h.Write(b)
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

func (s store) path(key string) string { return filepath.Join(s.dir, key[:2], key+".json") }

func (s store) get(key string, v any) (bool, error) {
	if s.dir == "" {
		return false, nil
	}
	b, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, nil // a damaged artifact is redone, not trusted
	}
	return true, nil
}

func (s store) put(key string, v any) error {
	if s.dir == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(s.path(key), b)
}

// ArtifactScenario reads a stage artifact (a file of the store) and returns
// the scenario it names ("" for the batch's scenarios stage, or an
// artifact written before artifacts named theirs).
func ArtifactScenario(data []byte) (string, error) {
	var c cachedStage
	if err := json.Unmarshal(data, &c); err != nil {
		return "", err
	}
	return c.Scenario, nil
}

// writeFile writes data to path atomically, creating its directory.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}
