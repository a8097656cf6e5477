package render

import (
	"bytes"
	"encoding/json"
	"maps"
	"os/exec"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestEveryFormatKeepsTheMachinesApart: Markdown, CSV, benchfmt and the
// plots of a set from two machines each name or separate the machines
// (engine/report tests the ratios within each).
func TestEveryFormatKeepsTheMachinesApart(t *testing.T) {
	t.Parallel()
	r, idA, idB := reporttest.TwoMachines(t)
	md := markdownOf(t, r)
	text := md.String()
	for _, want := range []string{"Ratio to native by machine", "| wasm | 3.00× | 5.00× |", "## Machine `" + idA + "`", "## Machine `" + idB + "`", "host-a", "host-b"} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q:\n%s", want, text)
		}
	}
	var csv bytes.Buffer
	if err := Write(r, &csv, FormatCSV, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(csv.String(), "\n"+idA+","); got != 4 {
		t.Errorf("CSV: %d rows of machine a, want 4 (2 envs × 2 n):\n%s", got, csv.String())
	}
	var bench bytes.Buffer
	if err := Write(r, &bench, FormatBenchfmt, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Count(bench.String(), "machine: ") != 2 {
		t.Errorf("benchfmt names %d machines, want 2:\n%s", strings.Count(bench.String(), "machine: "), bench.String())
	}
	plots, err := WritePlots(r, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plots {
		if !strings.HasPrefix(p.Path, idA+"/") && !strings.HasPrefix(p.Path, idB+"/") {
			t.Errorf("plot %s is not in a machine's directory", p.Path)
		}
	}
}

// TestCompareWarnsOfDifferentMachines: a comparison of sets from two
// machines says so first (engine/report tests the matching).
func TestCompareWarnsOfDifferentMachines(t *testing.T) {
	t.Parallel()
	a := reporttest.MachineSet(t, "host-a", 10, 30, "hash")
	b := reporttest.MachineSet(t, "host-b", 20, 100, "hash")
	cmp, err := report.Compare(report.Input{Dir: "a", Set: a}, report.Input{Dir: "b", Set: b}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "DIFFERENT MACHINES") {
		t.Errorf("different machines not warned:\n%s", md.String())
	}
}

// TestMachineColumnReadsEverywhere: the dictionary-encoded machine column
// of a merged set reads in pandas, polars and DuckDB as the two machines'
// IDs, with each machine's rows.
func TestMachineColumnReadsEverywhere(t *testing.T) {
	t.Parallel()
	py := venvPython(t, repoRoot(t))
	a := reporttest.MachineSet(t, "host-a", 10, 30, "hash")
	b := reporttest.MachineSet(t, "host-b", 20, 100, "hash")
	dir, set := reporttest.MergedOnDisk(t, a, b)
	want := map[string]int{}
	for _, s := range set.Samples {
		want[s.Machine]++
	}
	script := `
import json, sys, duckdb, pandas, polars
# No progress bar: a slow query on a busy machine would print it into stdout.
duckdb.execute("SET enable_progress_bar = false")
d = sys.argv[1]
p = pandas.read_parquet(d + "/samples.parquet")["machine"].astype(str).value_counts().to_dict()
l = dict(polars.read_parquet(d + "/samples.parquet")["machine"].cast(polars.Utf8).value_counts().iter_rows())
k = dict(duckdb.sql(f"select machine, count(*) from '{d}/samples.parquet' group by machine").fetchall())
r = dict(duckdb.sql(f"select machine, count(*) from '{d}/runs.parquet' group by machine").fetchall())
print(json.dumps({"pandas": p, "polars": l, "duckdb": k, "runs": r}))
`
	out, err := exec.Command(py, "-c", script, dir).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var got map[string]map[string]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, reader := range []string{"pandas", "polars", "duckdb"} {
		if !maps.Equal(got[reader], want) {
			t.Errorf("%s reads machines %v, want %v", reader, got[reader], want)
		}
	}
	if len(got["runs"]) != 2 {
		t.Errorf("runs.parquet machines: %v", got["runs"])
	}
}
