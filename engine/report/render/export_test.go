package render

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/results"
)

// TestCSVAndCellsParquetAgree writes the report of a committed set (one
// whose spec leaves cells of its grid unplanned) as WriteDir does
// (writeCells, its data without the plots) and as `report --format csv`, and reads both back with pyarrow and Python's
// csv module, readers of their own: the same columns in the same order,
// the same value in every field (null as an empty field), no row for a
// cell without processes, and the file stamped with the set's ID,
// generation and provenance.
func TestCSVAndCellsParquetAgree(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	py := venvPython(t, root)
	dir := filepath.Join(root, "results", "sequential")
	set, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r, err := writeCells(out, out, set)
	if err != nil {
		t.Fatal(err)
	}
	var csvText bytes.Buffer
	if err := Write(r, &csvText, FormatCSV, nil); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(out, "cells.csv")
	if err := os.WriteFile(csvPath, csvText.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	unplanned := 0
	for _, c := range r.Cells {
		if c.Processes == 0 && c.Skipped == "" {
			unplanned++
		}
	}
	if unplanned == 0 {
		t.Fatal("results/sequential's report has no unplanned cell: pick a set whose grid has one")
	}
	script := `
import csv, json, math, sys
import pyarrow.parquet as pq
pf, cf = sys.argv[1], sys.argv[2]
table = pq.read_table(pf)
meta = pq.read_metadata(pf).metadata
with open(cf, newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
problems = []
if header != table.column_names:
    problems.append(f"CSV header {header} != cells.parquet columns {table.column_names}")
if len(body) != table.num_rows:
    problems.append(f"{len(body)} CSV rows, {table.num_rows} in cells.parquet")
for name in header:
    if name not in table.column_names:
        continue
    col = header.index(name)
    for i, value in enumerate(table.column(name).to_pylist()[:len(body)]):
        text = body[i][col]
        if value is None:
            same = text == ""
        elif isinstance(value, bool):
            same = text == ("true" if value else "false")
        elif isinstance(value, float):
            same = text != "" and float(text) == value
        elif isinstance(value, int):
            same = text != "" and int(text) == value
        else:
            same = text == value
        if not same:
            problems.append(f"row {i} column {name}: CSV {text!r}, cells.parquet {value!r}")
processes = table.column("processes").to_pylist()
if min(processes) < 1:
    problems.append(f"{processes.count(0)} rows of cells.parquet for cells with no process")
if "" in table.column("verdict").to_pylist():
    problems.append("a row of cells.parquet has no verdict")
prov = json.loads(meta[b"spawnbench.provenance"])
print(json.dumps({"problems": problems[:20], "rows": table.num_rows, "set": meta[b"spawnbench.set"].decode(),
    "generation": meta[b"spawnbench.generation"].decode(), "invocations": len(prov.get("invocations") or [])}))
`
	got, err := exec.Command(py, "-c", script, filepath.Join(out, results.CellsFile), csvPath).Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, got)
	}
	var res struct {
		Problems    []string
		Rows        int
		Set         string
		Generation  string
		Invocations int
	}
	if err := json.Unmarshal(got, &res); err != nil {
		t.Fatalf("python printed %q: %v", got, err)
	}
	for _, p := range res.Problems {
		t.Error(p)
	}
	if res.Rows < 100 {
		t.Errorf("%d rows in cells.parquet, want one per measured cell and view of results/sequential (over 100)", res.Rows)
	}
	if res.Set != set.ID || set.ID == "" {
		t.Errorf("cells.parquet's set ID %q, want the set's %q", res.Set, set.ID)
	}
	if want := strconv.FormatInt(set.Generation, 10); res.Generation != want {
		t.Errorf("cells.parquet's generation %s, want the set's %s", res.Generation, want)
	}
	if want := len(set.Provenance.Invocations); res.Invocations != want || want == 0 {
		t.Errorf("cells.parquet's provenance has %d invocations, want the set's %d", res.Invocations, want)
	}
	if !strings.HasPrefix(csvText.String(), "machine,environment,") {
		t.Errorf("CSV starts %q, want cells.parquet's first columns", csvText.String()[:40])
	}
}
