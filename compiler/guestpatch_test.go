package compiler

import (
	"strings"
	"testing"
)

// A patch that no longer applies to the toolchain's sources fails the
// build with a message, never silently; the real patches apply.
func TestGuestPatchesApplyOrFailLoudly(t *testing.T) {
	tc, err := findToolchain()
	if err != nil {
		t.Skip(err)
	}
	if _, err := writeOverlay(tc.gobin, t.TempDir()); err != nil {
		t.Fatalf("the guest patches do not apply to %s: %v", tc.version, err)
	}
	saved := guestPatches
	defer func() { guestPatches = saved }()
	guestPatches = []guestPatch{{file: "fmt/print.go", old: "no such line in fmt\n", new: "x"}}
	_, err = writeOverlay(tc.gobin, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Fatalf("want a 'does not apply' error, got %v", err)
	}
}
