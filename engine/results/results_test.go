package results

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"
)

func sampleSet() *Set {
	c, j := int64(300), int64(900)
	return &Set{
		Samples: []SpawnSample{
			{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Process: 0, Thread: 0, SpawnNS: 500, CreateNS: &c, JoinedNS: &j, ClockTrusted: true},
			{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Process: 0, Thread: 1, SpawnNS: 400, ClockTrusted: true},
			{Environment: "wasi-threads", Kind: "wasi-threads", Mode: "parallel", N: 1, Process: 3, Thread: 0, SpawnNS: -7, Warmup: true},
		},
		Runs: []ProcessRun{
			{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Status: StatusOK, WallNS: 123456, Samples: 2, StartedAt: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), CPUs: CPUList{0, 1}},
			{Environment: "emscripten", Kind: "emscripten", Mode: "parallel", N: 1000, Status: StatusOOM, ExitCode: 7, Error: "Aborted(OOM)"},
		},
		Calibration: []CalibrationCheck{{Environment: "native", Check: "sleep", RequestedNS: 1000, MeasuredNS: 1100, Pass: true}},
		Provenance:  Provenance{Invocations: []Invocation{{ID: 1, Command: "run", SpecHash: "abc", SpecText: "n: [1]\n"}}},
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleSet()
	if err := want.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Samples) != 3 || len(got.Runs) != 2 || len(got.Calibration) != 1 {
		t.Fatalf("read %d samples, %d runs, %d checks", len(got.Samples), len(got.Runs), len(got.Calibration))
	}
	s := got.Samples[0]
	if s.SpawnNS != 500 || *s.CreateNS != 300 || *s.JoinedNS != 900 || !s.ClockTrusted || got.Samples[1].CreateNS != nil {
		t.Errorf("sample 0 = %+v, sample 1 create = %v", s, got.Samples[1].CreateNS)
	}
	if got.Samples[2].SpawnNS != -7 || !got.Samples[2].Warmup || got.Samples[2].Process != 3 {
		t.Errorf("sample 2 = %+v", got.Samples[2])
	}
	r := got.Runs[0]
	if !r.StartedAt.Equal(want.Runs[0].StartedAt) || r.CPUs.String() != "0,1" || got.Runs[1].Status != StatusOOM || got.Runs[1].Error != "Aborted(OOM)" {
		t.Errorf("runs = %+v", got.Runs)
	}
	if inv := got.Provenance.Last(); inv == nil || inv.SpecHash != "abc" || inv.SpecText != "n: [1]\n" || got.Provenance.Format != FormatVersion {
		t.Errorf("provenance = %v", got.Provenance)
	}
	if _, err := os.Stat(filepath.Join(dir, ProvenanceFile)); err != nil {
		t.Error(err)
	}
}

func TestReadRejectsWhatIsNotAResultSet(t *testing.T) {
	empty := t.TempDir()
	if _, err := Read(empty); err == nil || !strings.Contains(err.Error(), "samples.parquet is missing") {
		t.Errorf("empty dir: %v", err)
	}
	junk := t.TempDir()
	os.WriteFile(filepath.Join(junk, SamplesFile), []byte("not parquet at all"), 0o644)
	var fe *FormatError
	if _, err := Read(junk); !errors.As(err, &fe) {
		t.Errorf("junk file: %v", err)
	}
	// Parquet, but another table's columns.
	other := t.TempDir()
	s := sampleSet()
	s.Write(other)
	os.Rename(filepath.Join(other, RunsFile), filepath.Join(other, SamplesFile))
	if _, err := Read(other); !errors.As(err, &fe) || !strings.Contains(err.Error(), `no column "thread"`) {
		t.Errorf("wrong columns: %v", err)
	}
}

// TestOpensInPandasPolarsAndDuckDB is the promise to notebook users: the
// files open with no conversion, with the types they were written with.
func TestOpensInPandasPolarsAndDuckDB(t *testing.T) {
	fulltest.Only(t, "runs Python's pandas, Polars and DuckDB")
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: .ci/setup must create the Python environment", py)
		}
		t.Skipf("%s missing; run .ci/setup to create it", py)
	}
	dir := t.TempDir()
	if err := sampleSet().Write(dir); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, pandas as pd, polars as pl, duckdb
# No progress bar: a slow query on a busy machine would print it into stdout.
duckdb.execute("SET enable_progress_bar = false")
d = sys.argv[1]
s = pd.read_parquet(d + "/samples.parquet")
assert list(s.columns[:10]) == ["environment", "kind", "payload", "host", "mode", "n", "process", "thread", "spawn_ns", "create_ns"], list(s.columns)
assert str(s["n"].dtype) == "int32" and str(s["spawn_ns"].dtype) == "int64" and str(s["warmup"].dtype) == "bool", s.dtypes
assert s["spawn_ns"].sum() == 893
r = pd.read_parquet(d + "/runs.parquet")
assert str(r["started_at"].dt.tz) == "UTC", r["started_at"].dtype
p = pl.read_parquet(d + "/samples.parquet")
assert p["thread"].dtype == pl.Int32 and p.height == 3
q = duckdb.sql(f"select environment, count(*) c, sum(spawn_ns) s from '{d}/samples.parquet' group by 1 order by 1").fetchall()
assert q == [("native", 2, 900), ("wasi-threads", 1, -7)], q
import json
m = duckdb.sql(f"select value from parquet_kv_metadata('{d}/samples.parquet') where key = 'spawnbench.provenance'").fetchall()
assert m and json.loads(m[0][0])["invocations"][0]["spec_hash"] == "abc", m
assert str(r["user_ns"].dtype) in ("Int64", "float64", "int64"), r.dtypes
# CPU sets are lists, absent text is null, and every column says what it holds.
assert list(r["cpus"][0]) == [0, 1], r["cpus"][0]
assert r["signal"].isna().all(), r["signal"]
import pyarrow.parquet as pq
for f in ("samples.parquet", "runs.parquet", "calibration.parquet"):
    for field in pq.read_schema(d + "/" + f):
        assert field.metadata and field.metadata.get(b"description"), (f, field.name)
print("ok")
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("python: %v\n%s", err, out)
	}
}
