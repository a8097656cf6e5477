package render

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestBottomLineShowsTheOneCPUColumn: a set with one-CPU twins gets the
// "Threads on" column and the table of the same rows with the scheduler
// free (engine/report tests the one-CPU headline).
func TestBottomLineShowsTheOneCPUColumn(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.OneCPUSet(t))
	var sb strings.Builder
	if err := writeReportMarkdown(r, &sb, nil); err != nil {
		t.Fatal(err)
	}
	md := sb.String()
	if !strings.Contains(md, "### The same rows with the scheduler free") || !strings.Contains(md, "| one CPU |") {
		t.Errorf("the Markdown lacks the one-CPU column or the free table:\n%s", md)
	}
}

// TestBottomLineFlagsAreTheJSONBottomLinesCells: cells.parquet's
// bottom_line marks exactly the cells whose figures the JSON bottom line
// (and so the README's) shows: on a set with one-CPU twins, the twins'
// cells, not the free ones beside them.
func TestBottomLineFlagsAreTheJSONBottomLinesCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := WriteDir(dir, reporttest.OneCPUSet(t))
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := Write(r, &js, FormatJSON, nil); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		BottomLine struct {
			Mode string `json:"mode"`
			Rows []struct {
				First, Steady *struct {
					Environment string `json:"environment"`
					Placement   string `json:"placement"`
				}
			} `json:"rows"`
		} `json:"bottom_line"`
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // environment/mode/role
	oneCPU := 0
	for _, row := range decoded.BottomLine.Rows {
		for role, fig := range map[string]*struct {
			Environment string `json:"environment"`
			Placement   string `json:"placement"`
		}{"first spawn": row.First, "steady state": row.Steady} {
			if fig == nil {
				continue
			}
			if fig.Placement == report.PlaceOneCPUName {
				oneCPU++
			}
			want[fig.Environment+"/"+decoded.BottomLine.Mode+"/"+role] = role
		}
	}
	if oneCPU == 0 || len(want) == 0 {
		t.Fatalf("the fixture's JSON bottom line shows no one-CPU figure: %s", js.String())
	}
	cells, err := results.ReadCells(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cells {
		if c.BottomLine != "" {
			got[c.Environment+"/"+c.Mode+"/"+c.BottomLine] = c.BottomLine
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("cells.parquet's bottom_line marks %v; the JSON bottom line shows %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// TestSetCellsAreTheSetsOwn: the table `report DIR -o FILE.parquet`
// writes for one set is, byte for byte, the cells.parquet its run wrote
// into the set, stamped with the set's identity.
func TestSetCellsAreTheSetsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := reporttest.OneCPUSet(t)
	set.ID, set.Generation = "fixture-set", 3
	r, err := WriteDir(dir, set)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteSetCells(r, set, &out); err != nil {
		t.Fatal(err)
	}
	inSet, err := os.ReadFile(filepath.Join(dir, results.CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), inSet) {
		t.Errorf("WriteSetCells wrote %d bytes, the set's cells.parquet has %d: they differ", out.Len(), len(inSet))
	}
}
