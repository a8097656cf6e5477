package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
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

func TestCellStatisticsOnKnownData(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	// Five processes of one spawn: 10, 20, 30, 40, 50 µs, plus a warm-up
	// process of 1e9 µs that must not count.
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 1, Processes: 5,
		SpawnNS: reporttest.US([][]float64{{10}, {20}, {30}, {40}, {50}})})
	r := reporttest.Build(t, s)
	c := r.Cell("native", "sequential", report.Column{N: 1})
	if c == nil || c.Stats == nil {
		t.Fatalf("no statistics for native sequential n=1: %+v", c)
	}
	if c.Samples != 5 || c.Processes != 5 {
		t.Errorf("samples, processes = %d, %d; want 5, 5 (warm-up excluded)", c.Samples, c.Processes)
	}
	if got := float64(c.Stats.MeanUS); !reporttest.Near(got, 30) {
		t.Errorf("mean = %v µs, want 30", got)
	}
	if got := float64(c.Stats.MedianUS); !reporttest.Near(got, 30) {
		t.Errorf("median = %v µs, want 30", got)
	}
	// Hyndman-Fan 8 at q = 0.95 of five points: h = 1/3 + 0.95·(5 + 1/3)
	// = 5.4 lies past the last point, so p95 is the maximum.
	if got := float64(c.Stats.P95US); !reporttest.Near(got, 50) {
		t.Errorf("p95 = %v µs, want 50", got)
	}
	// Five processes: the typical time is the exponentiated trimmed mean
	// of their logs, one trimmed at each end: the geometric mean of 20,
	// 30 and 40, and the interval over the five brackets it.
	want := math.Cbrt(20 * 30 * 40)
	e := c.Stats.Estimate
	if !reporttest.Near(float64(e.TypicalUS), want) || e.Processes != 5 || !e.Bounded() || !(e.LowUS < e.TypicalUS && e.TypicalUS < e.HighUS) {
		t.Errorf("estimate = %+v, want typical %.2f over 5 processes inside a bounded interval", e, want)
	}
	if c.Judgement.Verdict == report.NotJudged {
		t.Errorf("verdict %q for 5 processes, want judged", c.Judgement.Verdict)
	}
}

func TestOneProcessIsNotJudged(t *testing.T) {
	t.Parallel()
	values := make([]float64, 101)
	for i := range values {
		values[i] = float64(i + 1)
	}
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 101, Processes: 1, SpawnNS: reporttest.US([][]float64{values})})
	c := reporttest.Build(t, s).Cell("native", "sequential", report.Column{N: 101})
	st := c.Stats
	if !reporttest.Near(float64(st.MedianUS), 51) || !reporttest.Near(float64(st.MeanUS), 51) {
		t.Errorf("median, mean of spawns = %v, %v; want 51, 51", st.MedianUS, st.MeanUS)
	}
	// The process's typical spawn: 20 trimmed from each end, the mean of
	// 21..81. One process gives no interval, whatever its spawn count.
	if !reporttest.Near(float64(st.TypicalUS), 51) || st.Bounded() || st.Processes != 1 {
		t.Errorf("estimate = %+v, want typical 51 from one process, unbounded", st.Estimate)
	}
	if c.Judgement.Verdict != report.NotJudged || !strings.Contains(reasonText(c.Judgement), "1 process") {
		t.Errorf("verdict = %q (%s), want not judged for 1 process", c.Judgement.Verdict, reasonText(c.Judgement))
	}
}

func TestLastKViewKeepsLastSpawnsOfEachProcess(t *testing.T) {
	t.Parallel()
	// Two processes of 100 spawns; spawn t of process p takes
	// 1000·p + t + 1 µs. The last 10 of each are threads 90..99.
	vals := make([][]float64, 2)
	for p := range vals {
		for tr := 0; tr < 100; tr++ {
			vals[p] = append(vals[p], float64(1000*p+tr+1))
		}
	}
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 100, Processes: 2, SpawnNS: reporttest.US(vals)})
	// Rows in any order must give the same view: the trim goes by thread.
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(s.Samples), func(i, j int) { s.Samples[i], s.Samples[j] = s.Samples[j], s.Samples[i] })
	r := reporttest.Build(t, s)

	wantCols := []report.Column{{N: 100}, {N: 100, Last: 10}}
	if len(r.Columns) != len(wantCols) || r.Columns[0] != wantCols[0] || r.Columns[1] != wantCols[1] {
		t.Fatalf("columns = %v, want %v", r.Columns, wantCols)
	}
	if got := columnLabel(r.Columns[1]); got != "100 (last 10)" {
		t.Errorf("label = %q, want %q", got, "100 (last 10)")
	}
	all := r.Cell("native", "sequential", report.Column{N: 100})
	last := r.Cell("native", "sequential", report.Column{N: 100, Last: 10})
	if all.Samples != 200 || last.Samples != 20 {
		t.Errorf("samples all, last = %d, %d; want 200, 20", all.Samples, last.Samples)
	}
	// All: mean of 1..100 and 1001..1100 = 550.5. Last 10: mean of
	// 91..100 and 1091..1100 = 595.5.
	if !reporttest.Near(float64(all.Stats.MeanUS), 550.5) {
		t.Errorf("mean of all = %v, want 550.5", all.Stats.MeanUS)
	}
	if !reporttest.Near(float64(last.Stats.MeanUS), 595.5) {
		t.Errorf("mean of last 10 = %v, want 595.5", last.Stats.MeanUS)
	}
	// Each process's last 10 are threads 90..99: 91..100 µs and
	// 1091..1100 µs, typical 95.5 and 1095.5 µs.
	if got := last.Stats.Summaries; len(got) != 2 || got[0].Spawns != 10 || got[1].Spawns != 10 || !reporttest.Near(got[0].TypicalUS, 95.5) || !reporttest.Near(got[1].TypicalUS, 1095.5) {
		t.Errorf("last-10 process summaries = %+v, want 10 spawns each, typical 95.5 and 1095.5 µs", got)
	}
}

func TestLastKViewOnlyFromMinN(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	s.Provenance.Invocations[0].Views = results.Views{Last: 5, MinN: 50}
	for _, n := range []int32{10, 50} {
		reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: n, Processes: 1, SpawnNS: reporttest.LognormalSpawns(40e3, 1)})
	}
	r := reporttest.Build(t, s)
	var labels []string
	for _, c := range r.Columns {
		labels = append(labels, columnLabel(c))
	}
	if got, want := strings.Join(labels, ","), "10,50,50 (last 5)"; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
}

func TestRatioToBaseline(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	base := reporttest.LognormalSpawns(40e3, 7)
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 100, Processes: 10, SpawnNS: base})
	// Exactly ten times native, spawn for spawn.
	reporttest.AddCell(s, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 100, Processes: 10,
		SpawnNS: func(p, t int) int64 { return 10 * base(p, t) }})
	r := reporttest.Build(t, s)
	q := r.Ratio("wasm", "sequential", report.Column{N: 100})
	if q == nil {
		t.Fatalf("no ratio for wasm; ratios = %+v", r.Ratios)
	}
	if !reporttest.NearStored(float64(q.Ratio), 10) {
		t.Errorf("ratio = %v, want 10", q.Ratio)
	}
	if !(q.Low < 10 && q.High > 10) || math.IsInf(float64(q.High), 0) {
		t.Errorf("ratio interval = [%v, %v], want finite and around 10", q.Low, q.High)
	}
	// The last-10 view has only 10 spawns a process, so its process
	// summaries vary more and its interval is wider.
	ql := r.Ratio("wasm", "sequential", report.Column{N: 100, Last: 10})
	if ql == nil || !reporttest.NearStored(float64(ql.Ratio), 10) {
		t.Fatalf("last-10 ratio = %+v, want 10", ql)
	}
	if !(ql.Low <= 10 && ql.High >= 10 && ql.High-ql.Low > q.High-q.Low) {
		t.Errorf("last-10 interval [%v, %v] should hold 10 and be wider than [%v, %v]", ql.Low, ql.High, q.Low, q.High)
	}
	if r.Ratio("native", "sequential", report.Column{N: 100}) != nil {
		t.Error("the baseline has a ratio to itself")
	}

	// Another baseline divides the other way.
	r2, err := report.Build([]report.Input{{Dir: "d", Set: s}}, report.Options{Baseline: "wasm"})
	if err != nil {
		t.Fatal(err)
	}
	if q := r2.Ratio("native", "sequential", report.Column{N: 100}); q == nil || !reporttest.NearStored(float64(q.Ratio), 0.1) {
		t.Errorf("native / wasm = %+v, want 0.1", q)
	}
}

func TestNoBaselineNoRatios(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 1, Processes: 10, SpawnNS: reporttest.LognormalSpawns(4e5, 1)})
	r := reporttest.Build(t, s)
	if len(r.Ratios) != 0 {
		t.Errorf("ratios without a baseline: %+v", r.Ratios)
	}
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

func TestMergeDisjointSets(t *testing.T) {
	t.Parallel()
	a := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(a, reporttest.Cell{Env: "native", Mode: "sequential", N: 1, Processes: 10, SpawnNS: reporttest.LognormalSpawns(4e4, 1)})
	b := &results.Set{Provenance: reporttest.Provenance(`{"native":"not asked for"}`, "")}
	reporttest.AddCell(b, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 1, Processes: 10, SpawnNS: reporttest.LognormalSpawns(4e5, 1)})
	r, err := report.Build([]report.Input{{Dir: "a", Set: a}, {Dir: "b", Set: b}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sources) != 2 || len(r.Ratios) != 1 || r.Skipped["native"] != "" {
		t.Errorf("merged: %d sources, %d ratios, skipped %v; want 2, 1, native not skipped", len(r.Sources), len(r.Ratios), r.Skipped)
	}
}

// TestInputErrors: every way a report or comparison can be asked of bad
// input is an input error (exit 2) that names the cause.
func TestInputErrors(t *testing.T) {
	t.Parallel()
	a := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(a, reporttest.Cell{Env: "native", Mode: "sequential", N: 1, Processes: 10, SpawnNS: reporttest.LognormalSpawns(4e4, 1)})
	badViews := reporttest.StatusSet()
	badViews.Provenance.Invocations[0].Views.Last = -10
	buildErr := func(inputs ...report.Input) func() error {
		return func() error { _, err := report.Build(inputs, report.Options{}); return err }
	}
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		// The same directory twice would count every spawn twice.
		{"one set under two names", buildErr(report.Input{Dir: "a", Set: a}, report.Input{Dir: "a2", Set: a}), "both measured native sequential n=1"},
		{"one set twice", buildErr(report.Input{Dir: "a", Set: a}, report.Input{Dir: "a", Set: a}), "both measured native sequential n=1"},
		{"empty set", buildErr(report.Input{Dir: "empty", Set: &results.Set{Provenance: reporttest.Provenance("", "")}}), "empty holds no results"},
		{"no set", buildErr(), "no result directories given"},
		{"bad views", buildErr(report.Input{Dir: "d", Set: badViews}), "views last -10"},
		{"unknown format", func() error { return Write(reporttest.Build(t, reporttest.StatusSet()), &bytes.Buffer{}, "xml", nil) }, `unknown format "xml"`},
		{"compare without a shared cell", func() error {
			_, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledSet("native", 1, "x")}, report.Input{Dir: "b", Set: reporttest.ScaledSet("wasm", 1, "x")}, report.CompareOptions{})
			return err
		}, "a and b share no measured (environment, mode, n) cell"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			var in *inputerr.Error
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an input error containing %q", err, tc.want)
			}
		})
	}
}

func TestRatioWithTooFewSamplesIsUnbounded(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.StatusSet())
	// wasi has 2 processes at n = 1, native 3: too few for an interval.
	q := r.Ratio("wasi", "sequential", report.Column{N: 1})
	if q == nil || math.Abs(float64(q.Ratio)-10) > 1 || q.Processes != 2 || q.BaselineProcesses != 3 {
		t.Fatalf("wasi/native = %+v, want about 10 from 2 and 3 processes", q)
	}
	if q.Low != 0 || !math.IsInf(float64(q.High), 1) {
		t.Errorf("interval = [%v, %v], want [0, +Inf]", q.Low, q.High)
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
	if len(r.Warnings) != 0 {
		t.Errorf("warnings for a calibration-only set: %+v", r.Warnings)
	}
}

// TestReportReadsTheStoredFigure: a process's all-spawns figure and
// spawn variance are what its result set stores (typical_spawn_ns,
// spawn_log_var), read, not reduced again from the samples: stored
// figures that differ from the samples' reduction are the ones the cell
// is computed over. A view of fewer spawns is reduced by the function
// that made the stored figure (stats.ReduceSpawns), and a process that
// stores no figure is refused by name.
func TestReportReadsTheStoredFigure(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 100, Processes: 10, SpawnNS: reporttest.LognormalSpawns(40e3, 11)})
	spawns := map[int32][]int64{}
	for _, x := range s.Samples {
		if !x.Warmup {
			spawns[x.Process] = append(spawns[x.Process], x.SpawnNS)
		}
	}
	// Stored figures a known amount off their samples' reduction.
	stored := map[int32][2]float64{}
	for i := range s.Runs {
		run := &s.Runs[i]
		if run.Warmup {
			continue
		}
		if want := stats.ReduceSpawns(spawns[run.Process]); float64(*run.TypicalSpawnNS) != want.TypicalNS || *run.SpawnLogVar != want.LogVar {
			t.Fatalf("process %d stores %d ns, %v; its spawns reduce to %v", run.Process, *run.TypicalSpawnNS, *run.SpawnLogVar, want)
		}
		typical, logVar := *run.TypicalSpawnNS+int64(run.Process+1)*1000, *run.SpawnLogVar*2
		run.TypicalSpawnNS, run.SpawnLogVar = &typical, &logVar
		stored[run.Process] = [2]float64{float64(typical) / 1e3, logVar}
	}
	r := reporttest.Build(t, s)
	all := r.Cell("native", "sequential", report.Column{N: 100})
	if all == nil || all.Stats == nil || len(all.Stats.Summaries) != 10 {
		t.Fatalf("all-spawns cell %+v, want 10 process summaries", all)
	}
	for _, p := range all.Stats.Summaries {
		if want := stored[p.Process]; p.TypicalUS != want[0] || p.SpawnVar != want[1] || p.Spawns != 100 {
			t.Errorf("process %d: the report used %v µs, log variance %v (%d spawns); the set stores %v µs, %v", p.Process, p.TypicalUS, p.SpawnVar, p.Spawns, want[0], want[1])
		}
	}
	last := r.Cell("native", "sequential", report.Column{N: 100, Last: 10})
	if last == nil || last.Stats == nil || len(last.Stats.Summaries) != 10 {
		t.Fatalf("last-10 cell %+v, want 10 process summaries", last)
	}
	for _, p := range last.Stats.Summaries {
		ns := spawns[p.Process]
		if want := stats.ReduceSpawns(ns[len(ns)-10:]); p.TypicalUS != want.TypicalNS/1e3 || p.SpawnVar != want.LogVar || p.Spawns != 10 {
			t.Errorf("process %d's last 10: %v µs, log variance %v; its last 10 spawns reduce to %v", p.Process, p.TypicalUS, p.SpawnVar, want)
		}
	}
	// A process written without its reduction is refused, by name.
	for i := range s.Runs {
		if !s.Runs[i].Warmup && s.Runs[i].Process == 3 {
			s.Runs[i].TypicalSpawnNS = nil
		}
	}
	if _, err := report.Build([]report.Input{{Dir: "testdir", Set: s}}, report.Options{}); err == nil || !strings.Contains(err.Error(), "process 3 printed 100 spawns but stores no summary") {
		t.Errorf("a process without its stored figure: %v, want it refused by name", err)
	}
}
