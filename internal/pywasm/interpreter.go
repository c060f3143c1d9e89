package pywasm

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Version names the interpreter build; Python bundles record it.
const Version = "cpython-3.13.5-wasm32-wasi"

// The SHA-256 of the decompressed artifacts as tools/python-wasm/build.sh
// made them (dist/SHA256SUMS has the same sums; CI checks both agree).
const (
	ModuleSHA256 = "953f779ece238fe184ff0dd7f18bfe883d72330b6d33a480b01cc9183a9366c2"
	StdlibSHA256 = "5eb59b025bd52cf9b35902dc565195c866bed71acbd793530d4d55e2a1208698"
)

//go:embed dist/python.wasm.zst dist/stdlib.zip.zst
var dist embed.FS

// Interp is the decompressed, verified interpreter.
type Interp struct {
	Module []byte      // python.wasm: CPython as a wasmenv reactor
	Stdlib *zip.Reader // the stdlib subset, an fs.FS of Lib/ paths
}

// ErrArtifact means the committed interpreter does not match its pinned sums.
type ErrArtifact struct{ Name, Got, Want string }

func (e *ErrArtifact) Error() string {
	return fmt.Sprintf("pywasm: %s has SHA-256 %s, want %s (rebuild with tools/python-wasm/build.sh and make-artifact.sh)", e.Name, e.Got, e.Want)
}

var loadOnce = sync.OnceValues(load)

// Interpreter returns the interpreter, decompressed and verified once per process.
func Interpreter() (*Interp, error) { return loadOnce() }

func load() (*Interp, error) {
	module, err := unpack("python.wasm", ModuleSHA256)
	if err != nil {
		return nil, err
	}
	stdlib, err := unpack("stdlib.zip", StdlibSHA256)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(stdlib), int64(len(stdlib)))
	if err != nil {
		return nil, fmt.Errorf("pywasm: stdlib.zip: %w", err)
	}
	return &Interp{Module: module, Stdlib: zr}, nil
}

func unpack(name, want string) ([]byte, error) {
	packed, err := dist.ReadFile("dist/" + name + ".zst")
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(packed, nil)
	if err != nil {
		return nil, fmt.Errorf("pywasm: %s: %w", name, err)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, &ErrArtifact{Name: name, Got: got, Want: want}
	}
	return raw, nil
}

// Mount is a read-only directory of the guest's file system.
type Mount struct {
	FS  fs.FS
	Dir string // where the guest sees it
}
