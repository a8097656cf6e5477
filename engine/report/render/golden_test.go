package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestOutputsMatchTheirGoldens renders a small synthetic set (the
// fixture's native, wasi-threads and emscripten cells, with a timeout, an
// OOM, a failed clock and a skipped environment) in every format, and a
// comparison of it with itself, each against a golden file in
// testdata/golden (as benchstat keeps testdata/*.stdout). A deliberate
// change to an output regenerates them all with
//
//	go test ./engine/report/render -run TestOutputsMatchTheirGoldens -update
func TestOutputsMatchTheirGoldens(t *testing.T) {
	t.Parallel()
	set := reporttest.RealisticSet(t)
	r, err := report.Build([]report.Input{{Dir: "fixture", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := reporttest.RealisticSet(t)
	cmp, err := report.Compare(report.Input{Dir: "fixture", Set: set}, report.Input{Dir: "again", Set: other}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]func(*bytes.Buffer) error{
		"report.md":       func(b *bytes.Buffer) error { return Write(r, b, FormatMarkdown, nil) },
		"report.csv":      func(b *bytes.Buffer) error { return Write(r, b, FormatCSV, nil) },
		"report.json":     func(b *bytes.Buffer) error { return Write(r, b, FormatJSON, nil) },
		"report.benchfmt": func(b *bytes.Buffer) error { return Write(r, b, FormatBenchfmt, nil) },
		"compare.md":      func(b *bytes.Buffer) error { return WriteComparison(cmp, b, FormatMarkdown) },
		"compare.csv":     func(b *bytes.Buffer) error { return WriteComparison(cmp, b, FormatCSV) },
		"compare.json":    func(b *bytes.Buffer) error { return WriteComparison(cmp, b, FormatJSON) },
	}
	for name, write := range outputs {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (create it with -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				gl, wl := bytes.Split(b.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := range min(len(gl), len(wl)) {
					if !bytes.Equal(gl[i], wl[i]) {
						t.Fatalf("%s differs from its golden at line %d (regenerate with -update if the change is meant):\n got: %s\nwant: %s", name, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%s differs from its golden in length: %d lines, want %d", name, len(gl), len(wl))
			}
		})
	}
}
