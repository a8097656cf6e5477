package render

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
)

var update = flag.Bool("update", false, "rewrite the golden files of the reference set's report")

// TestReferenceSetReportsAsBefore renders the committed reference set's
// report (no plots) and wants it byte for byte as the golden file written
// before environments became payload x host: the families, the order of
// the environments and every table are what they were. A deliberate change
// to the report regenerates it with -update.
func TestReferenceSetReportsAsBefore(t *testing.T) {
	t.Parallel()
	_, md := referenceReport(t)
	golden := filepath.Join("testdata", "reference-report.md")
	if *update {
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := md; got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the reference set's report differs from %s at line %d:\n got: %s\nwant: %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the reference set's report differs from %s in length: %d lines, want %d", golden, len(gl), len(wl))
	}
	for _, fam := range []string{"## ", hostfacts.Wasmtime, hostfacts.JSHosts, hostfacts.Emscripten, hostfacts.RawWorkers} {
		if !strings.Contains(md, fam) {
			t.Errorf("the report names no %q", fam)
		}
	}
}
