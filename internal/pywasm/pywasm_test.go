package pywasm_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/internal/pywasm"
)

// The committed artifact is what dist/SHA256SUMS and the pinned constants
// say, and it decompresses to a module and a stdlib with what Python needs.
func TestInterpreterMatchesPinnedSums(t *testing.T) {
	f, err := os.Open(filepath.Join("dist", "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			sums[name] = sum
		}
	}
	if sums["python.wasm"] != pywasm.ModuleSHA256 || sums["stdlib.zip"] != pywasm.StdlibSHA256 {
		t.Fatalf("SHA256SUMS %v, constants %s %s", sums, pywasm.ModuleSHA256, pywasm.StdlibSHA256)
	}
	in, err := pywasm.Interpreter()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(in.Module)
	if hex.EncodeToString(sum[:]) != pywasm.ModuleSHA256 {
		t.Fatal("module sum")
	}
	for _, name := range []string{"encodings/__init__.py", "json/__init__.py", "datetime.py", "re/__init__.py"} {
		if _, err := in.Stdlib.Open(name); err != nil {
			t.Errorf("stdlib lacks %s: %v", name, err)
		}
	}
}

func TestStubRoundTripAndRefusals(t *testing.T) {
	s := pywasm.NewStub(map[string][]byte{"tools/a.py": []byte("x = 1\n")})
	mod, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := pywasm.ParseStub(mod)
	if err != nil || got.Files["tools/a.py"] != "x = 1\n" || got.Check() != nil {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := pywasm.ParseStub([]byte("\x00asm\x01\x00\x00\x00")); !errors.Is(err, pywasm.ErrNotPython) {
		t.Errorf("empty module: %v", err)
	}
	bad := pywasm.NewStub(map[string][]byte{"../etc/passwd": nil})
	mod, _ = bad.Encode()
	if _, err := pywasm.ParseStub(mod); err == nil || errors.Is(err, pywasm.ErrNotPython) {
		t.Errorf("a path outside tools/: %v", err)
	}
	other := pywasm.NewStub(nil)
	other.ModuleSHA256 = strings.Repeat("0", 64)
	var mismatch *pywasm.ErrInterpreterMismatch
	if err := other.Check(); !errors.As(err, &mismatch) {
		t.Errorf("another interpreter: %v", err)
	}
}

// Schemas follow transformers' get_json_schema: its documented examples
// give its documented output.
func TestSchemasFollowGetJSONSchema(t *testing.T) {
	src := `
from typing import Literal


def multiply(x: float, y: float):
    """
    A function that multiplies two numbers

    Args:
        x: The first number to multiply
        y: The second number to multiply
    """
    return x * y


def drink_beverage(beverage: str):
    """
    A function that drinks a beverage

    Args:
        beverage: The beverage to drink (choices: ["tea", "coffee"])
    """
    return beverage


def mixed(a: list[int], b: dict[str, bool], c: int | None = None, d: Literal["x", "y"] = "x", e: str | int = 1) -> str:
    """Mixed types.

    Args:
        a: Some ints.
        b: A map
            that spans two lines.
        c: Maybe an int.
        d: A letter.
        e: Text or a number.

    Returns:
        Nothing useful.
    """
    return ""
`
	s := pywasm.NewStub(map[string][]byte{"tools/t.py": []byte(src)})
	tools, err := pywasm.Describe(context.Background(), &s, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"name":"multiply","description":"A function that multiplies two numbers","parameters":{"type":"object","properties":{"x":{"type":"number","description":"The first number to multiply"},"y":{"type":"number","description":"The second number to multiply"}},"required":["x","y"]}}`,
		`{"name":"drink_beverage","description":"A function that drinks a beverage","parameters":{"type":"object","properties":{"beverage":{"type":"string","enum":["tea","coffee"],"description":"The beverage to drink"}},"required":["beverage"]}}`,
		`{"name":"mixed","description":"Mixed types.","parameters":{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"description":"Some ints."},"b":{"type":"object","additionalProperties":{"type":"boolean"},"description":"A map that spans two lines."},"c":{"type":"integer","nullable":true,"description":"Maybe an int."},"d":{"type":"string","enum":["x","y"],"description":"A letter."},"e":{"type":["integer","string"],"description":"Text or a number."}},"required":["a","b"]}}`,
	}
	if len(tools) != len(want) {
		t.Fatalf("%d tools", len(tools))
	}
	for i, tool := range tools {
		b, _ := json.Marshal(tool)
		if string(b) != want[i] {
			t.Errorf("tool %d:\n got %s\nwant %s", i, b, want[i])
		}
	}
}
