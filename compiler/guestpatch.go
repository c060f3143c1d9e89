package compiler

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Guest patches: two small changes to the Go standard library the guest is
// built with (go build -overlay), so that nothing a call returns can depend
// on what ran before it on a pooled instance (docs/ARCHITECTURE.md,
// "Isolation between episodes"). The static rules (checks.go) refuse what
// can be seen in the source; these close what cannot:
//
//   - the runtime's random state (map seeds, map iteration order) is put
//     back to one fixed state at the start of every call (the sdk calls
//     runtime.wasmenvRestoreRand from wasmenv_call);
//   - fmt prints every non-nil pointer, channel, function, map or slice
//     address as hiddenAddress: a heap address depends on the instance's
//     history, and a format string built at run time or a pointer nested in
//     a value printed with %v would otherwise show one.
//
// A patch that no longer applies to the toolchain's sources fails the build
// with a message, never silently.
type guestPatch struct {
	file     string // under GOROOT/src
	old, new string // old must occur exactly once; "" old: new is a whole new file
}

// GuestPatchLevel is recorded in the manifest (envpkg.Manifest.GuestPatches);
// it changes whenever guestPatches change what a module can observe.
const GuestPatchLevel = 1

// hiddenAddress is what fmt prints for any non-nil address in the guest.
const hiddenAddress = 0xadd7e55

var guestPatches = []guestPatch{
	{file: "runtime/wasmenv_rand.go", new: runtimeRandPatch},
	{
		file: "fmt/print.go",
		old:  "\t\tu = uintptr(value.UnsafePointer())\n",
		new: fmt.Sprintf("\t\tif value.UnsafePointer() != nil {\n"+
			"\t\t\tu = %#x // wasmenv: addresses depend on the instance's history\n"+
			"\t\t}\n", hiddenAddress),
	},
}

// runtimeRandPatch adds runtime.wasmenvRestoreRand. The first call seeds
// the M's generators with a constant and keeps that state (seeding refills
// a ChaCha8 block, which costs more than copying ~300 bytes back); every
// later call copies it back. wasm has one M, so this covers every rand()
// the call's code makes: map seeds, map iteration starts, NaN hashes.
const runtimeRandPatch = `// Code added by the wasmenv compiler (compiler/guestpatch.go). DO NOT EDIT.

package runtime

import (
	"internal/chacha8rand"
	_ "unsafe" // go:linkname
)

//go:linkname wasmenvRestoreRand
func wasmenvRestoreRand() {
	mp := getg().m
	if !wasmenvRandSaved {
		mp.chacha8.Init64([4]uint64{0x7761736d656e76, 1, 2, 3})
		mp.cheaprand = 0x7761736d656e76
		wasmenvRand, wasmenvCheap, wasmenvRandSaved = mp.chacha8, mp.cheaprand, true
		return
	}
	mp.chacha8, mp.cheaprand = wasmenvRand, wasmenvCheap
}

var (
	wasmenvRand      chacha8rand.State
	wasmenvCheap     uint64
	wasmenvRandSaved bool
)
`

// guestPatchKey is the patches' part of the module cache key.
func guestPatchKey() string {
	var b strings.Builder
	for _, p := range guestPatches {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00", p.file, p.old, p.new)
	}
	return b.String()
}

// writeOverlay writes the patched files under dir and the overlay file that
// maps GOROOT's paths to them, and returns the overlay file's path.
func writeOverlay(gobin, dir string) (string, error) {
	out, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	replace := map[string]string{}
	for i, p := range guestPatches {
		text := p.new
		target := filepath.Join(goroot, "src", filepath.FromSlash(p.file))
		if p.old != "" {
			src, err := os.ReadFile(target)
			if err != nil {
				return "", fmt.Errorf("guest patch: %v", err)
			}
			if n := strings.Count(string(src), p.old); n != 1 {
				return "", fmt.Errorf("guest patch for %s does not apply to this Go toolchain (%d matches; wasmenv supports the Go releases its go.mod names)", p.file, n)
			}
			text = strings.Replace(string(src), p.old, p.new, 1)
		}
		patched := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p.file)))
		if err := os.WriteFile(patched, []byte(text), 0o644); err != nil {
			return "", err
		}
		replace[target] = patched
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, b, 0o644)
}
