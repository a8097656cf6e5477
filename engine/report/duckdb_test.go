package report

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"spawnbench/engine/results"
)

// TestReportAgreesWithDuckDB checks the report's means, medians and sample
// counts, for every cell and view of the committed reference set, against
// what DuckDB computes from the same samples.parquet.
func TestReportAgreesWithDuckDB(t *testing.T) {
	root := repoRoot(t)
	py := venvPython(t, root)
	dir := filepath.Join(root, "results", "reference-sequential")
	set, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build([]Input{{Dir: dir, Set: set}}, Options{Baseline: "native"})
	if err != nil {
		t.Fatal(err)
	}
	query := `
import json, sys, duckdb
d = sys.argv[1]
rows = duckdb.sql(f"""
  with s as (select *, row_number() over (partition by environment, mode, n, process order by thread desc) as from_end
             from '{d}/samples.parquet' where not warmup)
  select environment, mode, n, 0 as last, avg(spawn_ns) / 1e3, median(spawn_ns) / 1e3, count(*) from s group by all
  union all
  select environment, mode, n, 10, avg(spawn_ns) / 1e3, median(spawn_ns) / 1e3, count(*) from s where n >= 100 and from_end <= 10 group by all
""").fetchall()
print(json.dumps(rows))
`
	out, err := exec.Command(py, "-c", query, dir).Output()
	if err != nil {
		t.Fatalf("duckdb: %v", err)
	}
	var rows [][]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 40 {
		t.Fatalf("DuckDB found %d cells, want the reference set's 60", len(rows))
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, r := range rows {
		env, mode := r[0].(string), r[1].(string)
		col := Column{N: int32(r[2].(float64)), Last: int(r[3].(float64))}
		mean, median, count := r[4].(float64), r[5].(float64), int(r[6].(float64))
		c := rep.Cell(env, mode, col)
		if c == nil || c.Stats == nil {
			t.Errorf("%s %s %s: no cell in the report", env, mode, col.Label())
			continue
		}
		if c.Samples != count || !close(float64(c.Stats.MeanUS), mean) || !close(float64(c.Stats.MedianUS), median) {
			t.Errorf("%s %s %s: report n=%d mean %v median %v; DuckDB n=%d mean %v median %v",
				env, mode, col.Label(), c.Samples, c.Stats.MeanUS, c.Stats.MedianUS, count, mean, median)
		}
	}
}
