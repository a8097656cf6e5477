package render

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"spawnbench/engine/report/reporttest"
	"spawnbench/internal/fulltest"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// TestReportAgreesWithDuckDB checks the report's means, medians and sample
// counts, for every cell and view of the committed reference set, against
// what DuckDB computes from the same samples.parquet (spawns of ok
// processes only, by runs.parquet).
// The fixture set adds a timed-out process that printed spawns, which
// must count nowhere.
func TestReportAgreesWithDuckDB(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cases := []struct {
		name    string
		dir     string
		minRows int
	}{
		{"reference set", filepath.Join(root, "results", "reference"), 100},
		{"fixture", writeSet(t, reporttest.RealisticSet(t)), 19},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkAgainstDuckDB(t, tc.dir, tc.minRows) })
	}
}

func checkAgainstDuckDB(t *testing.T, dir string, minRows int) {
	fulltest.Only(t, "runs DuckDB")
	py := venvPython(t, repoRoot(t))
	set, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Build([]report.Input{{Dir: dir, Set: set}}, report.Options{Baseline: "native"})
	if err != nil {
		t.Fatal(err)
	}
	query := `
import json, sys, duckdb
# No progress bar: a slow query on a busy machine would print it into stdout.
duckdb.execute("SET enable_progress_bar = false")
d = sys.argv[1]
rows = duckdb.sql(f"""
  with ok as (select environment, mode, n, process from '{d}/runs.parquet' where not warmup and status = 'ok'),
       s as (select *, row_number() over (partition by environment, mode, n, process order by thread desc) as from_end
             from '{d}/samples.parquet' join ok using (environment, mode, n, process) where not warmup)
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
	if len(rows) < minRows {
		t.Fatalf("DuckDB found %d cells, want at least %d", len(rows), minRows)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, r := range rows {
		env, mode := r[0].(string), r[1].(string)
		col := report.Column{N: int32(r[2].(float64)), Last: int(r[3].(float64))}
		mean, median, count := r[4].(float64), r[5].(float64), int(r[6].(float64))
		c := rep.Cell(env, mode, col)
		if c == nil || c.Stats == nil {
			t.Errorf("%s %s %s: no cell in the report", env, mode, columnLabel(col))
			continue
		}
		if c.Samples != count || !close(float64(c.Stats.MeanUS), mean) || !close(float64(c.Stats.MedianUS), median) {
			t.Errorf("%s %s %s: report n=%d mean %v median %v; DuckDB n=%d mean %v median %v",
				env, mode, columnLabel(col), c.Samples, c.Stats.MeanUS, c.Stats.MedianUS, count, mean, median)
		}
	}
}
