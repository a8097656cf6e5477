package report_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

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
	if c.Judgement.Verdict != report.NotJudged || c.Judgement.Processes != 1 {
		t.Errorf("verdict = %q (%+v), want not judged for 1 process", c.Judgement.Verdict, c.Judgement)
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
	if want := []report.Column{{N: 10}, {N: 50}, {N: 50, Last: 5}}; !slices.Equal(r.Columns, want) {
		t.Errorf("columns = %v, want %v", r.Columns, want)
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

func TestDuplicateKeysAreRefused(t *testing.T) {
	t.Parallel()
	base := func() *results.Set {
		s := &results.Set{Provenance: reporttest.Provenance("", "")}
		reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 2, Processes: 2, SpawnNS: reporttest.US([][]float64{{1, 2}, {3, 4}})})
		return s
	}
	cases := []struct {
		name   string
		damage func(s *results.Set)
		want   string
	}{
		{"a spawn twice", func(s *results.Set) { s.Samples = append(s.Samples, s.Samples[0]) }, "its spawn (process 0, thread 0) appears more than once"},
		{"a process twice", func(s *results.Set) { s.Runs = append(s.Runs, s.Runs[1]) }, "its process 1 appears more than once"},
		{"a warm-up twice", func(s *results.Set) { s.Runs = append(s.Runs, s.Runs[len(s.Runs)-1]) }, "its warm-up process 0 appears more than once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.damage(s)
			var in *inputerr.Error
			_, err := report.Build([]report.Input{{Dir: "d", Set: s}}, report.Options{})
			if !errors.As(err, &in) || !strings.Contains(err.Error(), "d holds cell native/sequential/2 twice") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build = %v, want an input error naming the cell and %q", err, tc.want)
			}
			_, err = report.Compare(report.Input{Dir: "d", Set: s}, report.Input{Dir: "e", Set: base()}, report.CompareOptions{})
			if !errors.As(err, &in) {
				t.Errorf("Compare = %v, want an input error", err)
			}
		})
	}
}

func TestStatisticsUseOkProcessesOnly(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.CrashedSet(results.StatusCrashed, 1))
	c := r.Cell("native", "sequential", report.Column{N: 2})
	if c.Samples != 4 || !reporttest.Near(float64(c.Stats.MeanUS), 15) || !reporttest.Near(float64(c.Stats.MedianUS), 15) {
		t.Errorf("samples %d, mean %v, median %v; want 4, 15, 15 (crashed process excluded)", c.Samples, c.Stats.MeanUS, c.Stats.MedianUS)
	}
	// Every process failed, though they printed spawns: the status, not a
	// number.
	c2 := reporttest.Build(t, reporttest.CrashedSet(results.StatusTimeout, 2)).Cell("native", "sequential", report.Column{N: 2})
	if c2.Stats != nil || c2.Failures[results.StatusTimeout] != 2 {
		t.Errorf("all-failed cell: stats %+v, failures %v; want none and 2 timeouts", c2.Stats, c2.Failures)
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
	if want := []report.Warning{{Kind: report.WarnNoBaseline, Baseline: "native"}}; !slices.Equal(r.Warnings, want) {
		t.Errorf("warnings %+v, want %+v", r.Warnings, want)
	}
}

// TestCalibrationOnlySet: a set of calibration checks alone has each
// environment's clock verdict, a failed check with its detail, and no
// warning.
func TestCalibrationOnlySet(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", ""), Calibration: []results.CalibrationCheck{
		{Environment: "native", Check: "sleep", Pass: true},
		{Environment: "native", Check: "coherence", Pass: true},
		{Environment: "node", Check: "sleep", Process: 2, Pass: false, Detail: "1ms→9ms"},
	}}
	r := reporttest.Build(t, s)
	if len(r.Cells) != 0 || len(r.Clocks) != 2 || len(r.Warnings) != 0 {
		t.Fatalf("cells %d, clocks %+v, warnings %+v; want no cell, two clocks, no warning", len(r.Cells), r.Clocks, r.Warnings)
	}
	native, node := r.Clocks[0], r.Clocks[1]
	if !native.Trusted() || !native.Calibrated() || node.Trusted() || node.SleepPassed != 0 || node.SleepChecks != 1 {
		t.Errorf("clocks %+v, %+v; want native trusted, node's one sleep check failed", native, node)
	}
	if want := []report.FailedCheck{{Check: "sleep", Process: 2, Detail: "1ms→9ms"}}; !slices.Equal(node.Failed, want) {
		t.Errorf("node's failed checks %+v, want %+v", node.Failed, want)
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

// TestNoRegimesLeavesOutOnlyTheRegimes: a report built with NoRegimes
// has no cell's regimes, and every other figure (each cell's, the ratios)
// as the full report has it; the full report of the same set finds the
// two regimes of a cell that has them.
func TestNoRegimesLeavesOutOnlyTheRegimes(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 200, Processes: 5, SpawnNS: reporttest.LognormalSpawns(20e3, 1)})
	// A 40/60 mix of 11 and 32 µs: two regimes.
	reporttest.AddCell(s, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 200, Processes: 5, SpawnNS: func(p, t int) int64 {
		rng := rand.New(rand.NewPCG(uint64(p), uint64(t)))
		v := 32e3
		if rng.Float64() < 0.4 {
			v = 11e3
		}
		return int64(v * math.Exp(0.1*rng.NormFloat64()))
	}})
	full := reporttest.Build(t, s)
	figures, err := report.Build([]report.Input{{Dir: "testdir", Set: s}}, report.Options{NoRegimes: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := full.Cell("wasm", "sequential", report.Column{N: 200}); c == nil || len(c.Regimes) != 2 {
		t.Fatalf("the full report's wasm cell: %+v, want two regimes", c)
	}
	if len(figures.Cells) != len(full.Cells) {
		t.Fatalf("%d cells with NoRegimes, %d without", len(figures.Cells), len(full.Cells))
	}
	for i, c := range figures.Cells {
		if c.Regimes != nil {
			t.Errorf("%s %s %d: regimes %+v with NoRegimes", c.Environment, c.Mode, c.N, c.Regimes)
		}
		want := full.Cells[i]
		want.Regimes = nil
		// As the JSON carries them (a NaN is no DeepEqual of itself).
		if got, want := asJSON(t, c), asJSON(t, want); got != want {
			t.Errorf("%s %s %d: NoRegimes changed more than the regimes:\n%s\nwant\n%s", c.Environment, c.Mode, c.N, got, want)
		}
	}
	if got, want := asJSON(t, figures.Ratios), asJSON(t, full.Ratios); got != want {
		t.Errorf("ratios with NoRegimes %s, want %s", got, want)
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
