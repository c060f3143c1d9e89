package sdk

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// The //go:wasmimport and //go:wasmexport directives must spell their
// names literally; they must be the names sdk/wire defines for the host.
func TestDirectivesMatchWire(t *testing.T) {
	var imports, exports []string
	for _, f := range []string{"host_wasip1.go", "gen/exports_wasip1.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`//go:wasmimport (\S+) (\S+)`).FindAllStringSubmatch(string(src), -1) {
			if m[1] != wire.HostModule {
				t.Errorf("import from module %q, not %q", m[1], wire.HostModule)
			}
			imports = append(imports, m[2])
		}
		for _, m := range regexp.MustCompile(`//go:wasmexport (\S+)`).FindAllStringSubmatch(string(src), -1) {
			exports = append(exports, m[1])
		}
	}
	slices.Sort(imports)
	slices.Sort(exports)
	wantImports := []string{wire.ImportSQL, wire.ImportTake, wire.ImportClock, wire.ImportRandom, wire.ImportLog}
	slices.Sort(wantImports)
	wantExports := []string{wire.ExportBuffer, wire.ExportCall}
	slices.Sort(wantExports)
	if !slices.Equal(imports, wantImports) || !slices.Equal(exports, wantExports) {
		t.Errorf("imports %v exports %v; sdk/wire says %v and %v", imports, exports, wantImports, wantExports)
	}
}
