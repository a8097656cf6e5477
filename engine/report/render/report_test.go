package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// markdownOf is r's Markdown report.
func markdownOf(t *testing.T, r *report.Report) *bytes.Buffer {
	t.Helper()
	var md bytes.Buffer
	if err := Write(r, &md, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	return &md
}

func TestNoBaselineNoRatios(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 1, Processes: 10, SpawnNS: reporttest.LognormalSpawns(4e5, 1)})
	r := reporttest.Build(t, s)
	md := markdownOf(t, r)
	if !strings.Contains(md.String(), "No ratios: no other environment shares a measured cell with native.") {
		t.Errorf("markdown does not say why there are no ratios:\n%s", md.String())
	}
}

func TestClassicTableRendering(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.StatusSet())
	md := markdownOf(t, r)
	out := md.String()
	for _, row := range []string{
		"| Environment | Mode | 1 | 10 |",
		// Every figure of fewer than 5 processes says so: never a blank.
		"| native | sequential | 20.0 µs [not judged: 3 processes] | 10.5 µs [not judged: 2 processes] |",
		// Process 0 timed out; processes 1 and 2 spawn in 200 and 300 µs.
		"| emscripten | sequential | OOM | 250 µs (1 timeout) [not judged: 2 processes] |",
		"| wasi | sequential | 200 µs" + untrustedMark + " [not judged: 2 processes] | n/a |",
		"| chromium | sequential | skipped | skipped |",
	} {
		if !strings.Contains(out, row+"\n") {
			t.Errorf("classic table lacks row %q:\n%s", row, out)
		}
	}
	if strings.Contains(out, "| native | parallel") {
		t.Error("a mode no environment ran has rows")
	}
	if !strings.Contains(out, "- **chromium**: no chromium binary") {
		t.Error("skipped environment's reason missing")
	}
	if !strings.Contains(out, "| emscripten | sequential | 1 | 0 | OOM |") {
		t.Errorf("failed process table lacks the OOM process:\n%s", out)
	}
}

func TestFailureLabels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cell report.Cell
		want string
	}{
		{report.Cell{}, "n/a"},
		{report.Cell{Skipped: "why"}, "skipped"},
		{report.Cell{Failures: map[string]int{"timeout": 1}}, "timeout"},
		{report.Cell{Failures: map[string]int{"oom": 2, "crashed": 1}}, "crashed/OOM"},
		{report.Cell{Failures: map[string]int{"oom": 2}, Stats: &report.Stats{MeanUS: 1234.4}}, "1.23 ms (2 OOM)"},
		{report.Cell{Stats: &report.Stats{MeanUS: 9.876}, Untrusted: 1}, "9.88 µs" + untrustedMark},
		{report.Cell{Stats: &report.Stats{MeanUS: 15103775}}, "15.1 s"},
		{report.Cell{Stats: &report.Stats{MeanUS: 0.25}}, "250 ns"},
	}
	for _, tc := range cases {
		if got := ClassicText(&tc.cell); got != tc.want {
			t.Errorf("ClassicText(%+v) = %q, want %q", tc.cell, got, tc.want)
		}
	}
}

func TestClockWarningsComeFirst(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.RealisticSet(t))
	md := markdownOf(t, r)
	out := md.String()
	warn := strings.Index(out, "CLOCK NOT TRUSTED: wasi-threads")
	table := strings.Index(out, "## Mean spawn time")
	if warn < 0 || table < 0 || warn > table {
		t.Fatalf("clock warning at %d, classic table at %d; want the warning first:\n%s", warn, table, out)
	}
	if strings.Contains(out, "CLOCK NOT TRUSTED: native") {
		t.Error("native's clock passed but is reported untrusted")
	}
	if !strings.Contains(out, "1 of 1 coherence checks failed") || !strings.Contains(out, "7 spawns with spawn_ns > joined_ns") {
		t.Errorf("warning lacks the failed check and its detail:\n%s", out[:table])
	}
	if !strings.Contains(out, "Not calibrated (run `spawnbench calibrate`): emscripten.") {
		t.Error("uncalibrated environment not named")
	}
}

func TestCSVHasOneRowPerCell(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.StatusSet())
	var buf bytes.Buffer
	if err := Write(r, &buf, FormatCSV, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	measured := 0
	for _, c := range r.Cells {
		if c.Processes > 0 {
			measured++
		}
	}
	if measured == 0 || len(rows) != measured+1 {
		t.Fatalf("%d CSV rows, want %d measured cells + header", len(rows), measured)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	found := false
	for _, row := range rows[1:] {
		// Neither the skipped chromium nor wasi's unplanned n=10 has a row.
		if env := row[col["environment"]]; env == "chromium" || env == "wasi" && row[col["n"]] == "10" {
			t.Errorf("a row for a cell with no process: %v", row)
		}
		if row[col["environment"]] == "wasi" && row[col["untrusted_samples"]] != "2" {
			t.Errorf("wasi n=1 row = %v, want its 2 untrusted samples", row)
		}
		if row[col["environment"]] == "emscripten" && row[col["n"]] == "10" {
			found = true
			mean, err := strconv.ParseFloat(row[col["mean_us"]], 64)
			if row[col["failures"]] != "timeout=1" || err != nil || !reporttest.Near(mean, 250) {
				t.Errorf("emscripten n=10 row = %v", row)
			}
		}
	}
	if !found {
		t.Error("no CSV row for emscripten n=10")
	}
}

func TestJSONEncodesUnboundedIntervalsAsNull(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.StatusSet())
	var buf bytes.Buffer
	if err := Write(r, &buf, FormatJSON, []Plot{{Title: "t", Path: "p.png"}}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Cells []struct {
			Environment string
			N           int32
			Stats       *struct {
				MeanUS *float64 `json:"mean_us"`
				LowUS  *float64 `json:"low_us"`
			}
		}
		Plots []Plot
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, buf.String())
	}
	if len(got.Cells) != len(r.Cells) || len(got.Plots) != 1 {
		t.Fatalf("%d cells and %d plots in JSON, want %d and 1", len(got.Cells), len(got.Plots), len(r.Cells))
	}
	c := got.Cells[0]
	if c.Environment != "native" || c.N != 1 || c.Stats == nil || c.Stats.MeanUS == nil || *c.Stats.MeanUS != 20 || c.Stats.LowUS != nil {
		t.Errorf("first cell = %+v, want native n=1, mean 20, interval low null", c)
	}
}

// TestUnknownFormatIsAnInputError: a format Write does not know is the
// user's error, named with the formats it does.
func TestUnknownFormatIsAnInputError(t *testing.T) {
	t.Parallel()
	err := Write(reporttest.Build(t, reporttest.StatusSet()), &bytes.Buffer{}, "xml", nil)
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("got %v, want an input error naming the format", err)
	}
}

func TestCalibrationOnlySet(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", ""), Calibration: []results.CalibrationCheck{
		{Environment: "native", Check: "sleep", Pass: true},
		{Environment: "native", Check: "coherence", Pass: true},
		{Environment: "node", Check: "sleep", Pass: false, Detail: "1ms→9ms"},
	}}
	r := reporttest.Build(t, s)
	md := markdownOf(t, r)
	out := md.String()
	for _, want := range []string{
		"| native | 1/1 | 1/1 | 0/0 | — | — | trusted |",
		"| node | 0/1 | 0/0 | 0/0 | — | — | **NOT TRUSTED** |",
		"CLOCK NOT TRUSTED: node.** 1 of 1 sleep checks failed",
		"No spawns were measured in this result set.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("calibration-only report lacks %q:\n%s", want, out)
		}
	}
}
