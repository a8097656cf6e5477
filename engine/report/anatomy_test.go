package report_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// Every traced spawn that made a new OS thread splits into four parts
// that add up to its spawn time exactly, and a spawn that made none, or
// was not traced, has no parts.
func TestSpawnPartsAddUpToTheSpawn(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	split, whole := 0, 0
	for _, smp := range s.Samples {
		parts, ok := report.SpawnParts(smp)
		if !ok {
			if smp.NewOSThread != nil && *smp.NewOSThread {
				t.Fatalf("%s process %d spawn %d made a new OS thread but has no parts", smp.Environment, smp.Process, smp.Thread)
			}
			whole++
			continue
		}
		split++
		if sum := parts[0] + parts[1] + parts[2] + parts[3]; sum != smp.SpawnNS {
			t.Fatalf("%s process %d spawn %d: parts %v add up to %d ns, its spawn is %d ns", smp.Environment, smp.Process, smp.Thread, parts, sum, smp.SpawnNS)
		}
		for i, v := range parts {
			if v < 0 {
				t.Fatalf("%s process %d spawn %d: part %s is %d ns", smp.Environment, smp.Process, smp.Thread, report.PartNames[i], v)
			}
		}
	}
	if split == 0 || whole == 0 {
		t.Fatalf("the fixture has %d spawns with parts and %d without; the test needs both", split, whole)
	}
	yes := true
	if _, ok := report.SpawnParts(results.SpawnSample{SpawnNS: 10, SpawnTrace: results.SpawnTrace{NewOSThread: &yes}}); ok {
		t.Error("a spawn that made a new thread but lacks its events has parts")
	}
}

// Where every process splits its spawns in the same proportions, the
// parts' medians over processes add up to the spawn figure the row
// states, to rounding.
func TestAnatomyPartsAddUpToTheSpawnFigure(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	base := [4]int64{3000, 2000, 4000, 1000}
	for _, env := range []string{"native", "native@traced"} {
		reporttest.AddCell(s, reporttest.Cell{Env: env, Mode: "sequential", N: 1, Processes: 9,
			SpawnNS: func(p, _ int) int64 { return int64(10+p) * (base[0] + base[1] + base[2] + base[3]) / 10 }})
	}
	yes := true
	for i := range s.Samples {
		smp := &s.Samples[i]
		if smp.Environment != "native@traced" || smp.Warmup {
			continue
		}
		scale := int64(10 + smp.Process)
		newNS, wake, run := base[0]*scale/10, (base[0]+base[1])*scale/10, (base[0]+base[1]+base[2])*scale/10
		smp.TaskNewNS, smp.TaskWakeupNS, smp.TaskFirstRunNS, smp.NewOSThread = &newNS, &wake, &run, &yes
	}
	r := reporttest.Build(t, s)
	if r.Anatomy == nil || len(r.Anatomy.Rows) != 1 {
		t.Fatalf("anatomy %+v, want one row (native's first spawn)", r.Anatomy)
	}
	row := r.Anatomy.Rows[0]
	var sum float64
	for _, p := range row.Parts {
		sum += float64(p.MedianUS)
	}
	if math.Abs(sum-float64(row.SpawnUS)) > 1e-9 {
		t.Errorf("the parts' medians add up to %v µs, the spawn figure is %v µs", sum, row.SpawnUS)
	}
	if row.Environment != "native" || row.Traced != "native@traced" || row.Processes != 9 || row.Largest != report.PartScheduler {
		t.Errorf("row %+v: want native's, from native@traced, 9 processes, the scheduler's part the largest", row)
	}
}

// The traced set's anatomy: a row per bottom-line figure with a traced
// twin (the one-CPU headline and the free figure beside it), parts near
// the fixture's, no parts where no new OS thread was made, the scheduler
// split by placement, and tracing's cost cell by cell.
func TestAnatomyOfATracedSet(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.TracedSet())
	a := r.Anatomy
	if a == nil {
		t.Fatal("no anatomy for a set with traced twins")
	}
	type key struct{ figure, env string }
	rows := map[key]report.AnatomyRow{}
	var order []key
	for _, row := range a.Rows {
		k := key{row.Figure, row.Environment}
		if _, dup := rows[k]; dup {
			t.Errorf("two rows for %v", k)
		}
		rows[k] = row
		order = append(order, k)
	}
	want := []key{}
	for _, fig := range []string{report.FigureFirst, report.FigureSteady} {
		for _, env := range []string{"native@one-cpu", "native", "wasi-threads@one-cpu", "wasi-threads", "wazero", "emscripten"} {
			want = append(want, key{fig, env})
		}
	}
	if len(order) != len(want) {
		t.Fatalf("rows %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("rows %v, want %v", order, want)
		}
	}
	for _, row := range a.Rows {
		if row.Traced != row.Environment+report.TracedSuffix {
			t.Errorf("%v comes from %s", key{row.Figure, row.Environment}, row.Traced)
		}
		if !strings.HasPrefix(row.Environment, row.Row) {
			t.Errorf("%v is of bottom-line row %s", key{row.Figure, row.Environment}, row.Row)
		}
	}

	// Parts near the fixture's medians, each within a quarter of it,
	// the processes behind them those of the cell.
	for _, e := range reporttest.TracedEnvs {
		if e.NoThread {
			continue
		}
		for fig, medians := range map[string][4]float64{report.FigureFirst: e.First, report.FigureSteady: e.Steady} {
			env := e.Name
			if e.OneCPU {
				env += "@one-cpu" // the free row's scheduler part holds the wake-ups
			}
			row, ok := rows[key{fig, env}]
			if !ok {
				t.Fatalf("no row %s %s", fig, env)
			}
			if fig == report.FigureSteady && e.NoThreadAfter > 0 {
				if len(row.Parts) != 0 || row.NewThreadShare != 0 || row.Largest != "" {
					t.Errorf("%s steady: a reused worker's spawns have parts %+v and a new thread share %v", env, row.Parts, row.NewThreadShare)
				}
				continue
			}
			medians[1] += reporttest.TracingCostUS
			if len(row.Parts) != 4 || row.NewThreadShare != 1 {
				t.Fatalf("%s %s: parts %+v, new thread share %v; want four parts and 1", env, fig, row.Parts, row.NewThreadShare)
			}
			for i, p := range row.Parts {
				if p.Name != report.PartNames[i] {
					t.Errorf("%s %s: part %d is %q, want %q", env, fig, i, p.Name, report.PartNames[i])
				}
				if m := float64(p.MedianUS); math.Abs(m-medians[i]) > 0.25*medians[i] {
					t.Errorf("%s %s: %s is %.3g µs, the fixture's %.3g", env, fig, p.Name, m, medians[i])
				}
				if !(p.LowUS <= p.MedianUS && p.MedianUS <= p.HighUS) {
					t.Errorf("%s %s: %s %v outside its interval [%v, %v]", env, fig, p.Name, p.MedianUS, p.LowUS, p.HighUS)
				}
				if p.Processes != row.Processes {
					t.Errorf("%s %s: %s over %d processes, the row %d", env, fig, p.Name, p.Processes, row.Processes)
				}
			}
		}
	}
	if w := rows[key{report.FigureFirst, "wazero"}]; w.NewThreadShare != 0 || len(w.Parts) != 0 || w.Processes != 12 || !(w.SpawnUS > 0) {
		t.Errorf("wazero's goroutines: %+v, want no new thread, no parts, 12 processes and a spawn figure", w)
	}

	// Free, native's children mostly wake the other CPU, whose
	// scheduler part holds the wake-up; on one CPU, every child starts on
	// its parent's.
	free := rows[key{report.FigureSteady, "native"}]
	if len(free.SchedulerByPlacement) != 2 {
		t.Fatalf("native free, steady: scheduler by placement %+v, want both placements", free.SchedulerByPlacement)
	}
	same, other := free.SchedulerByPlacement[0], free.SchedulerByPlacement[1]
	if same.Placement != results.SameCPU || other.Placement != results.OtherCPU || math.Abs(float64(same.Share+other.Share)-1) > 1e-12 ||
		other.Share < 0.5 || other.MedianUS < same.MedianUS+15 {
		t.Errorf("native free, steady: same CPU %+v, other %+v; want most children on the other CPU, 25 µs later", same, other)
	}
	if pinned := rows[key{report.FigureSteady, "native@one-cpu"}]; len(pinned.SchedulerByPlacement) != 1 || pinned.SchedulerByPlacement[0].Share != 1 {
		t.Errorf("native on one CPU: scheduler by placement %+v, want every child on its parent's CPU", pinned.SchedulerByPlacement)
	}

	// Tracing costs native's short steady spawn more than its interval;
	// a reused worker's steady spawn, which starts no task to trace,
	// nothing.
	costs := map[string]*report.TracingCost{}
	for i := range a.Costs {
		c := &a.Costs[i]
		if c.Environment != c.Baseline+report.TracedSuffix {
			t.Errorf("cost %s ÷ %s is not a twin ÷ its environment", c.Environment, c.Baseline)
		}
		if c.Column == (report.Column{N: 100, Last: 10}) {
			costs[c.Baseline] = c
		}
	}
	if len(a.Costs) != 6*3 {
		t.Errorf("%d costs, want 18 (six twins, three columns)", len(a.Costs))
	}
	if c := costs["native@one-cpu"]; c == nil || c.BeyondInterval == nil || !*c.BeyondInterval || !*c.Moved || c.Ratio.Ratio < 1.1 || c.Low <= 1 {
		t.Errorf("native@one-cpu steady: cost %+v, want about 1.18×, beyond the untraced interval", c)
	}
	if c := costs["emscripten"]; c == nil || c.BeyondInterval == nil || *c.BeyondInterval || *c.Moved || c.Low > 1 || c.High < 1 {
		t.Errorf("emscripten steady: cost %+v, want none", c)
	}
	if row := rows[key{report.FigureSteady, "native@one-cpu"}]; row.Cost != costs["native@one-cpu"] {
		t.Errorf("native@one-cpu's steady row carries cost %+v, want %+v", row.Cost, costs["native@one-cpu"])
	}
}

// Traced twins are no rows of the bottom line, and a one-CPU twin's
// traced twin is not taken for the one-CPU twin, however the set's maps
// iterate; a traced twin divides by what its environment divides by.
func TestTracedTwinsLeaveTheBottomLineAsItWas(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	for range 8 {
		r := reporttest.Build(t, s)
		var envs []string
		for _, row := range r.BottomLine.Rows {
			envs = append(envs, row.Environment)
			for _, c := range []*report.BottomCell{row.First, row.Steady} {
				if strings.HasSuffix(c.Environment, report.TracedSuffix) {
					t.Fatalf("bottom-line row %s shows %s", row.Environment, c.Environment)
				}
			}
		}
		if got := strings.Join(envs, " "); got != "native wasi-threads wazero emscripten" {
			t.Fatalf("bottom-line rows %s, want native wasi-threads wazero emscripten", got)
		}
		if c := r.BottomLine.Rows[1].Steady; c.Environment != "wasi-threads@one-cpu" || c.Ratio.Baseline != "native@one-cpu" {
			t.Fatalf("wasi-threads steady: %s ÷ %s, want wasi-threads@one-cpu ÷ native@one-cpu", c.Environment, c.Ratio.Baseline)
		}
		if q := r.Ratio("wasi-threads@one-cpu@traced", "sequential", report.Column{N: 1}); q == nil || q.Baseline != "native@one-cpu" {
			t.Fatalf("wasi-threads@one-cpu@traced's ratio: %+v, want ÷ native@one-cpu", q)
		}
	}
}

// A set with no traced process has no anatomy, and its JSON no key.
func TestNoAnatomyWithoutTracedProcesses(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.RealisticSet(t))
	if r.Anatomy != nil {
		t.Fatalf("anatomy %+v of a set with no traced process", r.Anatomy)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"anatomy"`) {
		t.Error("the JSON of a set with no traced process has an anatomy key")
	}
}

// Twins whose processes could not be traced (a run as an ordinary user)
// give no parts and no cost, and the anatomy says why, once per reason.
func TestUntracedTwinsSayWhy(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	const why = "tracefs is not mounted, and mounting it needs root"
	for i := range s.Runs {
		if run := &s.Runs[i]; strings.HasSuffix(run.Environment, report.TracedSuffix) {
			run.Traced, run.TraceNote = false, why
		}
	}
	for i := range s.Samples {
		smp := &s.Samples[i]
		smp.TaskNewNS, smp.TaskWakeupNS, smp.TaskFirstRunNS, smp.TaskFirstCPU, smp.NewOSThread = nil, nil, nil, nil, nil
	}
	r := reporttest.Build(t, s)
	a := r.Anatomy
	if a == nil || len(a.Rows) != 0 || len(a.Costs) != 0 || len(a.NotTraced) != 1 {
		t.Fatalf("anatomy %+v, want no rows, no costs and one reason", a)
	}
	n := a.NotTraced[0]
	// Six twins: two cells of 12 and 8 processes, and one of 8 (n = 100's
	// two views are one cell of processes).
	if n.Note != why || n.Processes != 6*(12+8) || len(n.Environments) != 6 {
		t.Errorf("reason %+v, want %q over 6 twins' 120 processes", n, why)
	}
}

// A traced process's note says what limits its trace, not why it was
// not traced: it is kept apart, and its process still gives parts.
func TestATracedProcessNoteIsALimit(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	for i := range s.Runs {
		if run := &s.Runs[i]; run.Environment == "native@traced" && run.N == 1 && run.Process < 2 {
			run.TraceNote = "3 events lost"
		}
	}
	a := reporttest.Build(t, s).Anatomy
	if len(a.NotTraced) != 0 || len(a.Limits) != 1 || a.Limits[0].Processes != 2 || a.Limits[0].Environments[0] != "native@traced" {
		t.Fatalf("not traced %+v, limits %+v; want one limit of 2 processes of native@traced", a.NotTraced, a.Limits)
	}
	for _, row := range a.Rows {
		if row.Traced == "native@traced" && row.Figure == report.FigureFirst && (row.Processes != 12 || len(row.Parts) != 4) {
			t.Errorf("native's free first spawn: %d processes, %d parts; want 12 and 4", row.Processes, len(row.Parts))
		}
	}
}

// A traced cell whose own noise puts its figure outside the untraced
// interval, by a cost whose interval holds 1, is beyond the interval but
// moved nothing; a clear cost moved it.
func TestTracingMovesAFigureOnlyBeyondItsOwnNoise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		traced [][]float64
		moved  bool
	}{
		{"noisy", [][]float64{{10}, {30}, {150}, {500}, {2000}}, false},
		{"clear", [][]float64{{60}, {61}, {62}, {63}, {64}, {65}}, true},
	} {
		s := &results.Set{Provenance: reporttest.Provenance("", "")}
		reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 1, Processes: 12,
			SpawnNS: func(p, _ int) int64 { return int64(40_000 + 100*p) }})
		reporttest.AddCell(s, reporttest.Cell{Env: "native@traced", Mode: "sequential", N: 1, Processes: len(tc.traced), SpawnNS: reporttest.US(tc.traced)})
		for i := range s.Runs {
			s.Runs[i].Traced = s.Runs[i].Environment == "native@traced"
		}
		a := reporttest.Build(t, s).Anatomy
		if a == nil || len(a.Costs) != 1 {
			t.Fatalf("%s: anatomy %+v, want one cost", tc.name, a)
		}
		c := a.Costs[0]
		if c.BeyondInterval == nil || !*c.BeyondInterval || c.Moved == nil || *c.Moved != tc.moved {
			t.Errorf("%s: traced %v µs against untraced [%v, %v], cost %v [%v, %v]: beyond %v, moved %v; want beyond, moved %v",
				tc.name, c.TracedUS, c.UntracedLowUS, c.UntracedHighUS, c.Ratio.Ratio, c.Low, c.High, *c.BeyondInterval, *c.Moved, tc.moved)
		}
	}
}

// A host that times its own phases in the new thread (the fixture's
// embedded Wasmtime) splits its in_thread part into them, in the order
// they happen, each near its share of the part, with an interval and the
// part's processes; every other part, and every host that names no
// phases, has none. Each spawn's phases add up to its in_thread part.
func TestInThreadSplitsIntoTheHostsPhases(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	for _, smp := range s.Samples {
		phases, ok := report.SpawnPhases(smp)
		if !ok {
			continue
		}
		parts, _ := report.SpawnParts(smp)
		var sum int64
		for _, p := range phases {
			sum += p.EndNS
		}
		if sum != parts[3] {
			t.Fatalf("%s process %d spawn %d: phases %v add up to %d ns, in_thread is %d ns", smp.Environment, smp.Process, smp.Thread, phases, sum, parts[3])
		}
	}
	r := reporttest.Build(t, s)
	var host reporttest.TracedEnv
	for _, e := range reporttest.TracedEnvs {
		if len(e.Phases) > 0 {
			host = e
		}
	}
	split := 0
	for _, row := range r.Anatomy.Rows {
		for _, p := range row.Parts {
			if p.Name != report.PartInThread || !strings.HasPrefix(row.Environment, host.Name) {
				if p.Phases != nil {
					t.Errorf("%s %s: part %s has phases %+v", row.Figure, row.Environment, p.Name, p.Phases)
				}
				continue
			}
			split++
			if len(p.Phases) != len(host.Phases) {
				t.Fatalf("%s %s: in_thread phases %+v, want %v", row.Figure, row.Environment, p.Phases, host.Phases)
			}
			for i, ph := range p.Phases {
				want := host.PhaseShares[i] * float64(p.MedianUS)
				if ph.Name != host.Phases[i] || math.Abs(float64(ph.MedianUS)-want) > 0.25*want || ph.Processes != p.Processes ||
					!(ph.LowUS <= ph.MedianUS && ph.MedianUS <= ph.HighUS) {
					t.Errorf("%s %s: phase %d %+v, want %s near %.3g µs over %d processes, within its interval", row.Figure, row.Environment, i, ph, host.Phases[i], want, p.Processes)
				}
			}
		}
	}
	if split != 4 {
		t.Errorf("%d in_thread parts split into phases, want 4 (%s's first and steady, free and on one CPU)", split, host.Name)
	}
	// In JSON the phases nest in their part, in its shape.
	b, err := json.Marshal(r.Anatomy)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"name":"in_thread"`) || !strings.Contains(string(b), `"phases":[{"name":"thread_start","median_us":`) {
		t.Errorf("the anatomy's JSON nests no phases in in_thread: %.400s", b)
	}
}
