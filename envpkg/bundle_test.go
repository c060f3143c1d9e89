package envpkg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// sqliteImage is pages pages of 4 KiB with a SQLite header that says so,
// and filler after it.
func sqliteImage(pages int, filler byte) []byte {
	db := append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{filler}, pages*4096-16)...)
	binary.BigEndian.PutUint16(db[16:], 4096)
	binary.BigEndian.PutUint32(db[24:], 1) // change counter
	binary.BigEndian.PutUint32(db[28:], uint32(pages))
	binary.BigEndian.PutUint32(db[92:], 1) // version-valid-for: the page count holds
	return db
}

func testBundle() *Bundle {
	db := sqliteImage(1, 7)
	return &Bundle{
		Manifest: Manifest{
			Name: "demo", Version: "1.0.0", Description: "d", Clock: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
			Tools: []Tool{{Name: "get_x", Description: "gets x",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}},
			Limits: DefaultLimits,
		},
		Module: []byte{0, 'a', 's', 'm', 1, 0, 0, 0},
		DB:     db,
		Tasks: []Task{{ID: "t1", Instruction: "do", Calls: []Call{{Name: "get_x", Arguments: json.RawMessage(`{"id":"1"}`)}},
			Checks: []Check{{Name: "c", SQL: "SELECT 1"}}}},
	}
}

func TestRoundTrip(t *testing.T) {
	b := testBundle()
	data, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != b.Hash || !bytes.Equal(got.DB, b.DB) || !bytes.Equal(got.Module, b.Module) {
		t.Fatal("round trip changed the bundle")
	}
	if got.Manifest.OpenAITools[0].Function.Name != "get_x" || got.Manifest.OpenAITools[0].Type != "function" {
		t.Fatalf("openai tools: %+v", got.Manifest.OpenAITools)
	}
	if tk, ok := got.Task("t1"); !ok || tk.Checks[0].SQL != "SELECT 1" {
		t.Fatal("task lost")
	}
	// Deterministic: the same content gives the same bytes and hash.
	again, _ := Encode(testBundle())
	if !bytes.Equal(again, data) {
		t.Fatal("encoding is not deterministic")
	}
	sizes, err := SectionSizes(data)
	if err != nil || sizes[SectionDB] == 0 || sizes[SectionHash] != 16 {
		t.Fatalf("sections %v %v", sizes, err)
	}
}

func TestCorruptBundlesAreRefused(t *testing.T) {
	data, err := Encode(testBundle())
	if err != nil {
		t.Fatal(err)
	}
	var corruptErr *CorruptError
	for n := 0; n < len(data); n += 7 {
		if _, err := Decode(data[:n]); !errors.As(err, &corruptErr) {
			t.Fatalf("truncated to %d: err %v", n, err)
		}
	}
	for i := 0; i < len(data); i++ {
		flipped := bytes.Clone(data)
		flipped[i] ^= 0x40
		if _, err := Decode(flipped); err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
	// A valid structure whose hash was replaced.
	bad := bytes.Clone(data)
	copy(bad[len(bad)-16:], "0123456789abcdef")
	if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "hash mismatch") {
		t.Fatalf("wrong hash: %v", err)
	}
}

func TestValidation(t *testing.T) {
	cases := map[string]func(b *Bundle){
		"bad name":       func(b *Bundle) { b.Manifest.Name = "Bad Name" },
		"no tools":       func(b *Bundle) { b.Manifest.Tools = nil },
		"duplicate tool": func(b *Bundle) { b.Manifest.Tools = append(b.Manifest.Tools, b.Manifest.Tools[0]) },
		"bad schema":     func(b *Bundle) { b.Manifest.Tools[0].InputSchema = json.RawMessage(`[]`) },
		"unknown call":   func(b *Bundle) { b.Tasks[0].Calls[0].Name = "nope" },
		"dup task":       func(b *Bundle) { b.Tasks = append(b.Tasks, b.Tasks[0]) },
		"bad reward":     func(b *Bundle) { b.Tasks[0].Reward = "vibes" },
		"not sqlite":     func(b *Bundle) { b.DB = bytes.Repeat([]byte{1}, 200) },
		"bad module":     func(b *Bundle) { b.Module = []byte("not wasm") },
		"nothing scored": func(b *Bundle) { b.Tasks[0].Checks = nil },
		"bad limits":     func(b *Bundle) { b.Manifest.Limits.MemoryMB = 0 },
		"bad credit":     func(b *Bundle) { b.Manifest.Credit = "most" },
		"alone on json": func(b *Bundle) {
			b.Tasks[0].Answer = &Answer{Value: "{}", Match: "json", Alone: &Alone{Value: "{}"}}
		},
		"alone without value": func(b *Bundle) {
			b.Tasks[0].Answer = &Answer{Value: "a", Match: "contains", Alone: &Alone{Others: "SELECT 1"}}
		},
	}
	for name, mutate := range cases {
		b := testBundle()
		mutate(b)
		if _, err := Encode(b); err == nil {
			t.Errorf("%s: encoded without error", name)
		}
	}
}

func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.wasm")
	if err := Write(path, testBundle()); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err != nil {
		t.Fatal(err)
	}
	// A failing encode leaves the existing file untouched and no temp files.
	before, _ := os.ReadFile(path)
	b := testBundle()
	b.Manifest.Tools = nil
	if err := Write(path, b); err == nil {
		t.Fatal("invalid bundle written")
	}
	after, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if !bytes.Equal(before, after) || len(entries) != 1 {
		t.Fatalf("file changed or temp left: %d entries", len(entries))
	}
}

// FuzzDecode: no input makes Decode panic, and whatever it accepts is a
// bundle that encodes and decodes again.
func FuzzDecode(f *testing.F) {
	data, err := Encode(testBundle())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte{0, 'a', 's', 'm', 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(got)
		if err != nil {
			t.Fatalf("decoded bundle does not re-encode: %v", err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

// Issue 25 finding 13: a small bundle claiming a large database that is
// not one (or whose header disagrees with its size) is refused before the
// database is decoded: what Decode allocates stays far under the claim.
func TestLargeFakeDatabaseRefusedEarly(t *testing.T) {
	const size = 64 << 20
	for name, db := range map[string][]byte{
		"zeros":         make([]byte, size),
		"wrong-pages":   func() []byte { d := sqliteImage(size/4096, 0); binary.BigEndian.PutUint32(d[28:], 1); return d }(),
		"bad-page-size": func() []byte { d := sqliteImage(size/4096, 0); binary.BigEndian.PutUint16(d[16:], 1000); return d }(),
		"partial-page":  sqliteImage(size/4096, 0)[:size-100],
	} {
		data := encodeUnchecked(t, db)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := Decode(data)
		runtime.ReadMemStats(&m1)
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %d-byte bundle claiming %d MiB: %v", name, len(data), size>>20, err)
		}
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > size/4 {
			t.Errorf("%s: refusing it allocated %d MiB (%v)", name, grew>>20, err)
		}
	}
	// A real-looking image of that size still decodes.
	b := testBundle()
	b.DB = sqliteImage(size/4096, 0)
	data, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(data); err != nil || len(got.DB) != size {
		t.Fatalf("a valid header: %v", err)
	}
}

// encodeUnchecked is Encode for a database Encode would refuse, as a
// hostile bundle author writes it.
func encodeUnchecked(t *testing.T, db []byte) []byte {
	t.Helper()
	b := testBundle()
	if _, err := Encode(b); err != nil { // fills the manifest
		t.Fatal(err)
	}
	b.Manifest.DBBytes = int64(len(db))
	manifest, _ := json.Marshal(b.Manifest)
	tasks, _ := json.Marshal(b.Tasks)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	out := append([]byte(nil), b.Module...)
	out = appendCustom(out, SectionManifest, manifest)
	out = appendCustom(out, SectionTasks, tasks)
	out = appendCustom(out, SectionDB, enc.EncodeAll(db, nil))
	return appendCustom(out, SectionHash, fmt.Appendf(nil, "%016x", xxhash.Sum64(out)))
}
