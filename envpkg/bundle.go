package envpkg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// Custom section names, in the order they are written.
const (
	SectionManifest = "wasmenv.manifest"
	SectionTasks    = "wasmenv.tasks"
	SectionDB       = "wasmenv.db"
	SectionHash     = "wasmenv.hash"
)

// maxDBBytes bounds the decompressed database so a hostile bundle cannot
// claim terabytes; a larger environment needs a format change.
const maxDBBytes = 4 << 30

var wasmMagic = []byte{0, 'a', 's', 'm', 1, 0, 0, 0}

// Encode serializes a bundle. It fills b.Hash, b.Size and b.DBZstd.
func Encode(b *Bundle) ([]byte, error) {
	if err := validateModule(b.Module); err != nil {
		return nil, err
	}
	b.Manifest.Format = FormatVersion
	b.Manifest.ABI = ABIVersion
	b.Manifest.DBBytes = int64(len(b.DB))
	b.Manifest.OpenAITools = OpenAIToolsFor(b.Manifest.Tools)
	if err := validateManifest(&b.Manifest); err != nil {
		return nil, err
	}
	if err := validateTasks(b.Tasks, &b.Manifest); err != nil {
		return nil, err
	}
	if err := validateDB(b.DB); err != nil {
		return nil, err
	}
	manifest, err := json.Marshal(b.Manifest)
	if err != nil {
		return nil, err
	}
	tasks := b.Tasks
	if tasks == nil {
		tasks = []Task{}
	}
	tasksJSON, err := json.Marshal(tasks)
	if err != nil {
		return nil, err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	db := enc.EncodeAll(b.DB, nil)
	enc.Close()

	out := make([]byte, 0, len(b.Module)+len(manifest)+len(tasksJSON)+len(db)+128)
	out = append(out, b.Module...)
	out = appendCustom(out, SectionManifest, manifest)
	out = appendCustom(out, SectionTasks, tasksJSON)
	out = appendCustom(out, SectionDB, db)
	sum := xxhash.Sum64(out)
	b.Hash = fmt.Sprintf("%016x", sum)
	out = appendCustom(out, SectionHash, []byte(b.Hash))
	b.Size = int64(len(out))
	b.DBZstd = int64(len(db))
	return out, nil
}

func appendCustom(out []byte, name string, payload []byte) []byte {
	var body []byte
	body = binary.AppendUvarint(body, uint64(len(name)))
	body = append(body, name...)
	out = append(out, 0)
	out = binary.AppendUvarint(out, uint64(len(body)+len(payload)))
	out = append(out, body...)
	return append(out, payload...)
}

// Write encodes b and writes it to path atomically.
func Write(path string, b *Bundle) error {
	data, err := Encode(b)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to path atomically (internal/atomicfile).
func WriteFileAtomic(path string, data []byte) error {
	return atomicfile.WriteFile(path, data)
}

// Read reads and validates a bundle file.
func Read(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// CorruptError is a bundle that fails validation.
type CorruptError struct{ Reason string }

func (e *CorruptError) Error() string { return "invalid bundle: " + e.Reason }

func corrupt(format string, args ...any) error {
	return &CorruptError{Reason: fmt.Sprintf(format, args...)}
}

type section struct {
	id      byte
	name    string // custom sections only
	start   int    // offset of the section id byte
	payload []byte // custom: after the name
}

// sections walks the module's section headers with bounds checks.
func sections(data []byte) ([]section, error) {
	if len(data) < 8 || !bytes.Equal(data[:8], wasmMagic) {
		return nil, corrupt("not a WebAssembly module (bad magic or version)")
	}
	var out []section
	for i := 8; i < len(data); {
		s := section{id: data[i], start: i}
		size, n := binary.Uvarint(data[i+1:])
		if n <= 0 || n > 5 {
			return nil, corrupt("section at offset %d: bad size", i)
		}
		body := i + 1 + n
		if size > uint64(len(data)-body) {
			return nil, corrupt("section at offset %d: truncated (%d bytes promised, %d left)", i, size, len(data)-body)
		}
		end := body + int(size)
		if s.id == 0 {
			nameLen, m := binary.Uvarint(data[body:end])
			if m <= 0 || nameLen > uint64(end-body-m) {
				return nil, corrupt("custom section at offset %d: bad name", i)
			}
			s.name = string(data[body+m : body+m+int(nameLen)])
			s.payload = data[body+m+int(nameLen) : end]
		} else if s.id > 12 {
			return nil, corrupt("section at offset %d: unknown section id %d", i, s.id)
		}
		out = append(out, s)
		i = end
	}
	return out, nil
}

func validateModule(module []byte) error {
	secs, err := sections(module)
	if err != nil {
		return err
	}
	for _, s := range secs {
		if strings.HasPrefix(s.name, "wasmenv.") {
			return corrupt("tool module already has section %s", s.name)
		}
	}
	return checkSections(secs)
}

// sectionStart is the WebAssembly start section: a function that runs
// inside instantiation, before any time limit can apply.
const sectionStart = 8

// CheckModule refuses what a tool module may not have: a start section
// (tool modules initialize through the _initialize export, which runs under
// a time limit; a start function could loop forever inside Load).
func CheckModule(module []byte) error {
	secs, err := sections(module)
	if err != nil {
		return err
	}
	return checkSections(secs)
}

func checkSections(secs []section) error {
	for _, s := range secs {
		if s.id == sectionStart {
			return corrupt("the tool module has a start section (a function run at instantiation, outside any time limit); tool modules initialize through _initialize")
		}
	}
	return nil
}

// Decode parses and validates a bundle.
func Decode(data []byte) (*Bundle, error) {
	secs, err := sections(data)
	if err != nil {
		return nil, err
	}
	// The wasmenv sections are the last four, in order, and nothing else is named wasmenv.*.
	want := []string{SectionManifest, SectionTasks, SectionDB, SectionHash}
	if len(secs) < len(want) {
		return nil, corrupt("missing wasmenv sections")
	}
	tail := secs[len(secs)-len(want):]
	for i, s := range tail {
		if s.id != 0 || s.name != want[i] {
			return nil, corrupt("expected section %s in position %d from the end, found %q", want[i], len(want)-i, s.name)
		}
	}
	for _, s := range secs[:len(secs)-len(want)] {
		if strings.HasPrefix(s.name, "wasmenv.") {
			return nil, corrupt("unexpected section %s inside the tool module", s.name)
		}
	}
	if err := checkSections(secs); err != nil {
		return nil, err
	}
	hashSec := tail[3]
	got := fmt.Sprintf("%016x", xxhash.Sum64(data[:hashSec.start]))
	if string(hashSec.payload) != got {
		return nil, corrupt("content hash mismatch: bundle says %q, content hashes to %s (corrupted or tampered)", truncate(string(hashSec.payload), 32), got)
	}

	b := &Bundle{Module: data[:tail[0].start:tail[0].start], Hash: got, Size: int64(len(data)), DBZstd: int64(len(tail[2].payload))}
	dec := json.NewDecoder(bytes.NewReader(tail[0].payload))
	if err := dec.Decode(&b.Manifest); err != nil {
		return nil, corrupt("manifest: %v", err)
	}
	if b.Manifest.Format != FormatVersion {
		return nil, corrupt("bundle format %d, this wasmenv reads format %d", b.Manifest.Format, FormatVersion)
	}
	if b.Manifest.ABI < MinABIVersion || b.Manifest.ABI > ABIVersion {
		return nil, corrupt("tool ABI %d, this wasmenv runs ABI %d to %d (rebuild the bundle)", b.Manifest.ABI, MinABIVersion, ABIVersion)
	}
	if err := validateManifest(&b.Manifest); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(tail[1].payload, &b.Tasks); err != nil {
		return nil, corrupt("tasks: %v", err)
	}
	if err := validateTasks(b.Tasks, &b.Manifest); err != nil {
		return nil, err
	}
	if b.Manifest.DBBytes <= 0 || b.Manifest.DBBytes > maxDBBytes {
		return nil, corrupt("manifest: database size %d out of range", b.Manifest.DBBytes)
	}
	// The frame must declare the size the manifest claims before anything is
	// allocated for it.
	var hdr zstd.Header
	if err := hdr.Decode(tail[2].payload); err != nil || !hdr.HasFCS || hdr.FrameContentSize != uint64(b.Manifest.DBBytes) {
		return nil, corrupt("database: compressed frame does not declare the manifest's size %d", b.Manifest.DBBytes)
	}
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(b.Manifest.DBBytes)))
	if err != nil {
		return nil, err
	}
	defer zd.Close()
	// The SQLite header first: a small bundle claiming a large database
	// that is not one (zeros compress 10,000:1) fails before the database
	// is allocated (issue 25 finding 13: 1.1 GB for a 3 MB bundle).
	if err := checkDBHead(tail[2].payload, b.Manifest.DBBytes); err != nil {
		return nil, err
	}
	b.DB, err = zd.DecodeAll(tail[2].payload, make([]byte, 0, b.Manifest.DBBytes))
	if err != nil {
		return nil, corrupt("database: %v", err)
	}
	if int64(len(b.DB)) != b.Manifest.DBBytes {
		return nil, corrupt("database: %d bytes, manifest says %d", len(b.DB), b.Manifest.DBBytes)
	}
	if err := validateDB(b.DB); err != nil {
		return nil, err
	}
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

var (
	nameRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	taskIDRE   = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
)

// The largest limits an environment may ask for. A server may cap them
// lower (runtime.Options); they keep a hand-made bundle from overflowing a
// duration or asking for unbounded output.
const (
	MaxMemoryMB       = 4096
	MaxCallTimeoutMS  = 10 * 60 * 1000 // 10 minutes
	MaxOutputBytesCap = 64 << 20       // 64 MiB
	MaxWriteMB        = 4096
)

// ValidEnvName reports whether s can name an environment: 1 to 64
// lowercase letters, digits and '-', not starting with '-'.
func ValidEnvName(s string) bool { return nameRE.MatchString(s) }

// ValidTaskID reports whether s can identify a task: 1 to 128 of
// A-Z a-z 0-9 _ . : -.
func ValidTaskID(s string) bool { return taskIDRE.MatchString(s) }

func validateManifest(m *Manifest) error {
	if !nameRE.MatchString(m.Name) {
		return corrupt("manifest: environment name %q must match %s", m.Name, nameRE)
	}
	if len(m.Tools) == 0 {
		return corrupt("manifest: no tools")
	}
	seen := map[string]bool{}
	for i, t := range m.Tools {
		if !toolNameRE.MatchString(t.Name) {
			return corrupt("manifest: tool %d: bad name %q", i, t.Name)
		}
		if seen[t.Name] {
			return corrupt("manifest: duplicate tool %q", t.Name)
		}
		seen[t.Name] = true
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema["type"] != "object" {
			return corrupt("manifest: tool %s: inputSchema must be a JSON object schema", t.Name)
		}
	}
	if len(m.OpenAITools) != len(m.Tools) {
		return corrupt("manifest: %d OpenAI tools for %d tools", len(m.OpenAITools), len(m.Tools))
	}
	for i, c := range m.Export {
		if c.Name == "" || c.Query == "" {
			return corrupt("manifest: export %d needs a name and a query", i)
		}
	}
	switch m.Credit {
	case "", CreditPartial, CreditAll:
	default:
		return corrupt("manifest: credit %q is not %s or %s", m.Credit, CreditPartial, CreditAll)
	}
	l := m.Limits
	if l.CallTimeoutMS <= 0 || l.CallTimeoutMS > MaxCallTimeoutMS || l.MemoryMB <= 0 || l.MemoryMB > MaxMemoryMB ||
		l.MaxOutputBytes <= 0 || l.MaxOutputBytes > MaxOutputBytesCap || l.MaxWriteMB < 0 || l.MaxWriteMB > MaxWriteMB {
		return corrupt("manifest: limits out of range: call_timeout %d ms (1 ms to 10 minutes), memory_mb %d (1 to %d), max_output_bytes %d (1 to %d), max_write_mb %d (0 to %d)",
			l.CallTimeoutMS, l.MemoryMB, MaxMemoryMB, l.MaxOutputBytes, MaxOutputBytesCap, l.MaxWriteMB, MaxWriteMB)
	}
	return nil
}

func validateTasks(tasks []Task, m *Manifest) error {
	seen := map[string]bool{}
	for i, t := range tasks {
		if !taskIDRE.MatchString(t.ID) {
			return corrupt("task %d: bad id %q", i, t.ID)
		}
		if seen[t.ID] {
			return corrupt("duplicate task id %q", t.ID)
		}
		seen[t.ID] = true
		for j, c := range t.Calls {
			if !slices.ContainsFunc(m.Tools, func(tool Tool) bool { return tool.Name == c.Name }) {
				return corrupt("task %s: call %d: unknown tool %q", t.ID, j+1, c.Name)
			}
		}
		for j, c := range t.Checks {
			if strings.TrimSpace(c.SQL) == "" {
				return corrupt("task %s: check %d has no sql", t.ID, j+1)
			}
		}
		switch t.Reward {
		case "", RewardChecks, RewardState:
		default:
			return corrupt("task %s: reward %q is not checks or state", t.ID, t.Reward)
		}
		if t.Answer != nil && !slices.Contains(AnswerMatches, t.Answer.Match) {
			return corrupt("task %s: answer match %q is not one of %v", t.ID, t.Answer.Match, AnswerMatches)
		}
		if err := t.Answer.CheckAlone(); err != nil {
			return corrupt("task %s: %v", t.ID, err)
		}
		if len(t.Checks) == 0 && t.Answer == nil && t.Reward != RewardState {
			return corrupt("task %s: nothing to score (no checks, no answer, reward is not state)", t.ID)
		}
	}
	return nil
}

func validateDB(db []byte) error {
	if len(db) < 100 {
		return corrupt("database: not a SQLite image")
	}
	return validateDBHeader(db[:100], int64(len(db)))
}

// checkDBHead decodes the first 100 bytes of the database, streaming, and
// checks them (validateDBHeader).
func checkDBHead(frame []byte, size int64) error {
	zd, err := zstd.NewReader(bytes.NewReader(frame), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(size)))
	if err != nil {
		return corrupt("database: %v", err)
	}
	defer zd.Close()
	var head [100]byte
	if _, err := io.ReadFull(zd, head[:]); err != nil {
		return corrupt("database: %v", err)
	}
	return validateDBHeader(head[:], size)
}

// validateDBHeader checks a SQLite header against the database's size:
// the magic, a page size SQLite allows, a whole number of pages, and the
// header's own page count where SQLite would trust it (its version-valid
// number equals the change counter; https://sqlite.org/fileformat.html).
func validateDBHeader(h []byte, size int64) error {
	if string(h[:16]) != "SQLite format 3\x00" {
		return corrupt("database: not a SQLite image")
	}
	page := int64(binary.BigEndian.Uint16(h[16:18]))
	if page == 1 {
		page = 65536
	}
	if page < 512 || page > 65536 || page&(page-1) != 0 {
		return corrupt("database: page size %d is not one SQLite writes", page)
	}
	if size%page != 0 {
		return corrupt("database: %d bytes is not a whole number of %d-byte pages", size, page)
	}
	change, valid, pages := binary.BigEndian.Uint32(h[24:28]), binary.BigEndian.Uint32(h[92:96]), binary.BigEndian.Uint32(h[28:32])
	if pages != 0 && change == valid && int64(pages)*page != size {
		return corrupt("database: its header says %d pages of %d bytes, the bundle holds %d bytes", pages, page, size)
	}
	return nil
}

// SectionSizes lists the custom sections of an encoded bundle with their sizes.
func SectionSizes(data []byte) (map[string]int, error) {
	secs, err := sections(data)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, s := range secs {
		if s.id == 0 {
			out[s.name] = len(s.payload)
		}
	}
	return out, nil
}
