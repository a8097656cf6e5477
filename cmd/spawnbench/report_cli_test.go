package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The tests of report and compare on the report packages' fixtures
// (engine/report/reporttest): what a user sees of bad input, files and
// plots written, and a comparison.

// writeForeignParquet writes a valid Parquet file that is not spawnbench's.
func writeForeignParquet(t *testing.T, path string) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "price", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeSet writes s into a new directory of t's and returns it.
func writeSet(t *testing.T, s interface{ Write(string) error }) string {
	t.Helper()
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCLIBadInputExitsTwo(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	garbage := filepath.Join(tmp, "garbage")
	foreign := filepath.Join(tmp, "foreign")
	for _, d := range []string{empty, garbage, foreign} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"samples.parquet", "runs.parquet"} {
		if err := os.WriteFile(filepath.Join(garbage, name), []byte("timestamp,value\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		writeForeignParquet(t, filepath.Join(foreign, name))
	}
	native := writeSet(t, reporttest.ScaledSet("native", 1, "gcc"))
	twice := reporttest.ScaledSet("native", 1, "gcc")
	twice.Samples = append(twice.Samples, twice.Samples[3])
	duplicated := writeSet(t, twice)
	wasm := writeSet(t, reporttest.ScaledSet("wasm", 1, "wasmtime"))

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"report", filepath.Join(tmp, "nope")}, "does not exist"},
		{"directory without results", []string{"report", empty}, "holds no spawnbench results: samples.parquet is missing"},
		{"a file, not a directory", []string{"report", filepath.Join(garbage, "runs.parquet")}, "is a file"},
		{"not Parquet", []string{"report", garbage}, "is not a spawnbench result file"},
		{"Parquet of something else", []string{"report", foreign}, `is not a spawnbench result file: no column "environment"`},
		{"no directory", []string{"report"}, "give at least one result directory"},
		{"unknown format", []string{"report", native, "--format", "xml"}, `unknown format "xml"`},
		{"unknown baseline", []string{"report", native, "--baseline", "v8"}, `baseline "v8" is not an environment`},
		{"nothing shared", []string{"compare", native, wasm}, "share no measured (environment, mode, n) cell"},
		{"compare one set", []string{"compare", native}, "want two or more result directories"},
		{"compare as benchfmt", []string{"compare", native, native, "--format", "benchfmt"}, "compare has no benchfmt output"},
		{"duplicate keys", []string{"report", duplicated}, "holds cell native/sequential/100 twice"},
		{"compare with duplicate keys", []string{"compare", native, duplicated}, "holds cell native/sequential/100 twice"},
		{"report over its samples", []string{"report", native, "-o", filepath.Join(native, "samples.parquet")}, "would overwrite"},
		{"report over its provenance", []string{"report", native, "-o", filepath.Join(native, ".", "provenance.json")}, "would overwrite"},
		{"compare over an input", []string{"compare", native, native, "-o", filepath.Join(native, "runs.parquet")}, "would overwrite"},
		{"compare with a bad set", []string{"compare", native, empty}, "holds no spawnbench results"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("spawnbench %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
			}
		})
	}
}

func TestCLIReportWritesFileAndPlots(t *testing.T) {
	t.Parallel()
	dir := writeSet(t, reporttest.RealisticSet(t))
	outDir := t.TempDir()
	out := filepath.Join(outDir, "report.md")
	plots := filepath.Join(outDir, "figures")
	stdout, stderr, code := runCLI(t, "report", dir, "-o", out, "--plots", plots)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Links are relative to the report file, so it renders where it lies.
	if !strings.Contains(string(md), "](figures/dist-sequential-n100.png)") {
		t.Errorf("report does not link its plots relative to itself:\n%s", md)
	}
	for _, f := range []string{"dist-sequential-n100.png", "dist-sequential-n100.svg", "order-sequential-n1000.png"} {
		if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}

	// -o with a .json name writes JSON without --format.
	js := filepath.Join(outDir, "report.json")
	if _, stderr, code := runCLI(t, "report", dir, "-o", js); code != 0 {
		t.Fatalf("report -o %s: exit %d: %s", js, code, stderr)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(data, &decoded); err != nil || decoded["baseline"] != "native" {
		t.Errorf("report.json: %v, baseline %v", err, decoded["baseline"])
	}

	stdout, stderr, code = runCLI(t, "report", dir, "--format", "benchfmt")
	if code != 0 || !strings.Contains(stdout, "\nBenchmarkSpawn/environment=native/mode=sequential/n=100/view=all 100 ") {
		t.Errorf("report --format benchfmt: exit %d, stderr %q, output:\n%s", code, stderr, stdout[:min(len(stdout), 500)])
	}
}

func TestCLICompare(t *testing.T) {
	t.Parallel()
	a := writeSet(t, reporttest.ScaledSet("native", 1, "gcc 12"))
	b := writeSet(t, reporttest.ScaledSet("native", 1.5, "gcc 13"))
	stdout, stderr, code := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| toolchain native | gcc 12 | gcc 13 |", "| native | sequential | 100 | all |", "+50.0%", "| yes |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, stdout)
		}
	}
}
