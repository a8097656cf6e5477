package render

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
	"spawnbench/internal/fulltest"

	"spawnbench/engine/stats"
)

// benchstatBinary builds golang.org/x/perf/cmd/benchstat at the version
// go.mod pins (the module that also gives spawnbench benchmath).
func benchstatBinary(t *testing.T) string {
	t.Helper()
	fulltest.Only(t, "builds benchstat")
	return fulltest.Binary(t, "golang.org/x/perf/cmd/benchstat")
}

func TestBenchfmtReadByBenchstat(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.BenchfmtSet())
	var buf bytes.Buffer
	if err := Write(r, &buf, FormatBenchfmt, nil); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	// One line per ok process and view: 12 at n = 1; 6 ok of 7 at n = 100,
	// in the all-spawns and the last-10 view; for each environment.
	if got, want := strings.Count(text, "\n"+BenchmarkName), 2*(12+6+6); got != want {
		t.Errorf("%d benchmark lines, want %d:\n%s", got, want, text)
	}
	if !regexp.MustCompile(`^machine: testhost \(Test CPU, 2 cores, amd64, id [0-9a-f]{12}\)\n`).MatchString(text) {
		t.Errorf("benchfmt output does not start with the machine key:\n%s", text[:min(len(text), 300)])
	}
	file := filepath.Join(t.TempDir(), "spawn.txt")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(benchstatBinary(t), "-format", "csv", "-col", "/environment", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchstat: %v\n%s", err, stderr.String())
	}
	medians := benchstatMedians(t, stdout.String())
	checked := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Stats == nil {
			continue
		}
		row := "mode=sequential/n=" + strconv.Itoa(int(c.N)) + "/view=" + benchView(c.Last)
		got, ok := medians[row+" "+c.Environment]
		if !ok {
			t.Errorf("benchstat has no median for %s %s; it has %v", row, c.Environment, medians)
			continue
		}
		// benchstat's median is of the per-process means; for n = 1 that
		// is the cell's own median.
		want := stats.Median(processMeansUS(r, c)) * 1e3
		if c.N == 1 && !reporttest.Near(want, float64(c.Stats.MedianUS)*1e3) {
			t.Errorf("%s n=1: median of process means %v ≠ cell median %v", c.Environment, want, c.Stats.MedianUS)
		}
		// benchstat prints about four significant digits.
		if d := (got - want) / want; d > 5e-4 || d < -5e-4 {
			t.Errorf("%s %s: benchstat median %v ns, spawnbench %v ns", row, c.Environment, got, want)
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d cells against benchstat, want 6", checked)
	}
}

// benchstatMedians reads benchstat's CSV: a row naming the column groups
// (one per environment), a row naming each column (sec/spawn for the
// medians, CI, and vs base and P for comparisons), then one row per
// benchmark ("Spawn/mode=…/n=…/view=…"). It returns the medians in ns
// keyed by "mode=…/n=…/view=… environment".
func benchstatMedians(t *testing.T, out string) map[string]float64 {
	t.Helper()
	rd := csv.NewReader(strings.NewReader(out))
	rd.FieldsPerRecord = -1
	rd.LazyQuotes = true
	var groups, units []string
	got := map[string]float64{}
	for {
		row, err := rd.Read()
		if err != nil {
			break
		}
		switch {
		case len(row) > 1 && row[0] == "" && slices.Contains(row, "sec/spawn"):
			units = row
		case len(row) > 1 && row[0] == "":
			groups = row
		case units != nil && strings.HasPrefix(row[0], "Spawn/"):
			env := ""
			for i := 1; i < len(row) && i < len(units); i++ {
				if i < len(groups) && groups[i] != "" {
					env = groups[i]
				}
				if units[i] != "sec/spawn" {
					continue
				}
				if v, err := strconv.ParseFloat(row[i], 64); err == nil {
					got[strings.TrimPrefix(row[0], "Spawn/")+" "+env] = v * 1e9
				}
			}
		}
	}
	if len(got) == 0 {
		t.Fatalf("no medians in benchstat's output:\n%s", out)
	}
	return got
}
