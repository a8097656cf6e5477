package cost

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

var update = flag.Bool("update", false, "rewrite reference.json from results/reference")

// TestReferenceIsTheCommittedSet: the built-in costs are exactly the
// cost summary of the committed reference set, and a model's ID says
// which costs it is of.
func TestReferenceIsTheCommittedSet(t *testing.T) {
	dir := filepath.Join("..", "..", ReferenceDir)
	costs, err := results.ReadCosts(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	want := costs.Encode()
	if *update {
		if err := os.WriteFile("reference.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, referenceJSON) {
		t.Fatalf("engine/cost/reference.json is not what %s measured; after re-measuring the reference set, rewrite it with: go test ./engine/cost -run TestReferenceIsTheCommittedSet -update", ReferenceDir)
	}
	loaded := FromCosts(dir, costs.Cells)
	if len(loaded.Points) != len(Reference().Points) || loaded.ID() != Reference().ID() || len(loaded.ID()) != 12 {
		t.Errorf("%s: %d points, ID %s; built in: %d, ID %s", dir, len(loaded.Points), loaded.ID(), len(Reference().Points), Reference().ID())
	}
	if other := FromCosts("other", costs.Cells[:len(costs.Cells)/2]); other.ID() == loaded.ID() {
		t.Errorf("half the cells give the same ID %s", other.ID())
	}
}

// TestPoolsCountEveryProcess: a cell's point is its cost summary's
// median; the same cell of two sets or machines, a kind's pool and every
// kind's pool are the median over their processes, each counted at its
// cell's median.
func TestPoolsCountEveryProcess(t *testing.T) {
	cell := func(machine, env string, processes int, wallMS int64) results.CellCost {
		return results.CellCost{Machine: machine, Kind: "wasi-threads", Environment: env, Host: "wasmtime", Mode: "sequential", N: 1, Processes: processes, MedianWallNS: wallMS * 1e6}
	}
	m := FromCosts("pools", []results.CellCost{
		cell("a", "one", 3, 10), cell("b", "one", 1, 50), // one cell, two machines: 10, 10, 10, 50
		cell("a", "two", 2, 30), // 30, 30
		{Machine: "a", Kind: "native", Environment: "native", Host: "os", Mode: "sequential", N: 1, Processes: 1, MedianWallNS: 1e6},
		{Machine: "a", Kind: "native", Environment: "native", Host: "os", Mode: "sequential", N: 10, Processes: 0, MedianWallNS: 9e6}, // no process: no point
	})
	want := map[key]Point{
		{"wasi-threads", "one", "sequential", ""}: {Processes: 4, WallNS: 10e6},
		{"wasi-threads", "two", "sequential", ""}: {Processes: 2, WallNS: 30e6},
		{"wasi-threads", "", "sequential", ""}:    {Processes: 6, WallNS: 20e6}, // 10 10 10 30 30 50
		{"native", "native", "sequential", ""}:    {Processes: 1, WallNS: 1e6},
		{"native", "", "sequential", ""}:          {Processes: 1, WallNS: 1e6},
		{"", "", "sequential", ""}:                {Processes: 7, WallNS: 10e6}, // 1 10 10 10 30 30 50
	}
	if len(m.Points) != len(want) {
		t.Errorf("%d points, want %d: %+v", len(m.Points), len(want), m.Points)
	}
	for _, p := range m.Points {
		w, ok := want[key{p.Kind, p.Environment, p.Mode, p.Start}]
		if !ok || p.N != 1 || p.Processes != w.Processes || p.WallNS != w.WallNS {
			t.Errorf("point %+v, want %d processes at %d ns", p, w.Processes, w.WallNS)
		}
	}
}

// TestHereIsThisMachinesCells: the cells of this machine give its curves,
// its ratios to the model for the cells both have, and its warm browser
// pages; another machine's cells are not this one's.
func TestHereIsThisMachinesCells(t *testing.T) {
	base := Reference()
	var cells []results.CellCost
	for _, p := range base.Points {
		if p.Environment == "" || p.N != 1 {
			continue
		}
		c := results.CellCost{Machine: "here", Kind: p.Kind, Environment: p.Environment, Mode: p.Mode, Start: p.Start, N: p.N, Processes: 5, MedianWallNS: 3 * p.WallNS}
		cells = append(cells, c)
		c.Machine = "elsewhere"
		c.MedianWallNS = p.WallNS / 2
		cells = append(cells, c)
	}
	cells = append(cells, results.CellCost{Machine: "here", Kind: "manual", Environment: "manual", Host: "chromium", Mode: "sequential", Start: hostfacts.Warm, N: 1, Processes: 4, MedianWallNS: 2e8})
	if Here("nobody", base, nil, cells) != nil {
		t.Error("a machine with no cells measured something")
	}
	mc := Here("here", base, []string{"results/a", "results/b"}, cells)
	if mc == nil || mc.ID != "here" || mc.Model != base.ID() || len(mc.Ratios) < 20 {
		t.Fatalf("machine %+v", mc)
	}
	if f, lo, hi := mc.Factor(); f != 3 || lo < 2.99 || hi > 3.01 {
		t.Errorf("factor %v (%v to %v), want 3: this machine's cells are three times the model's", f, lo, hi)
	}
	if !mc.HasWarm([]string{"chromium"}) || mc.HasWarm([]string{"firefox"}) || len(mc.Warm) != 1 || mc.Warm[0].WallNS != 2e8 {
		t.Errorf("warm pages %+v, want Chromium's 200ms", mc.Warm)
	}
	if !strings.HasPrefix(mc.Source, "2 result set(s) measured here (results/a, results/b: ") {
		t.Errorf("source %q", mc.Source)
	}
}

// TestTheModelRunsNothing: engine/cost is a model of plain data. Nothing
// it imports builds, runs or supervises anything, so it stays below the
// environments and the runner.
func TestTheModelRunsNothing(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "spawnbench/engine/spec") {
		t.Fatalf("go list -deps names no spawnbench package: %v", deps)
	}
	for _, forbidden := range []string{"env", "proc", "buildcache", "run", "browser", "wasmhost"} {
		if slices.Contains(deps, "spawnbench/engine/"+forbidden) {
			t.Errorf("engine/cost depends on engine/%s, which builds or runs things: its input is plain data", forbidden)
		}
	}
}

func studyPlan(t *testing.T) *spec.RunPlan {
	t.Helper()
	p, err := spec.LoadPlan(filepath.Join("..", "..", "specs", "study.cue"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cellOf(t *testing.T, p *spec.RunPlan, key string) spec.Cell {
	t.Helper()
	for _, c := range p.Cells {
		if c.Key() == key {
			return c
		}
	}
	t.Fatalf("no cell %s", key)
	return spec.Cell{}
}

// addedSinceReference are the kinds of the study that results/reference
// was measured without; they are estimated from other kinds until the
// reference is measured again.
var addedSinceReference = map[string]bool{"wazero": true, "wasmtime-cm-threads": true, "wasmer": true, "wasi-libc-wasmer": true}

// TestEstimatesFollowTheReference: the reference set measured every
// environment of the study, with every browser started cold, so every
// cell's estimate comes from its own environment (a warm browser's from
// its cold self, with no saving known: the cold cost) and is positive,
// but for the cold variants named after the reference, the environments
// of the sid root, which come from their kind, and addedSinceReference;
// browsers cost more than native, the pause is added and the timeout caps.
func TestEstimatesFollowTheReference(t *testing.T) {
	m := Reference()
	p := studyPlan(t)
	for _, c := range p.Cells {
		want := "environment"
		switch start := startOfCell(c); {
		case addedSinceReference[c.Env.Kind]:
			// Once the reference holds the kind, this fails: remove it
			// from the list.
			want = "other kinds"
		case start == hostfacts.Warm:
			want = "cold"
		case start == hostfacts.Cold && strings.HasSuffix(c.Env.Name, "-cold"):
			want = "kind"
		case fromSidRoot(t, c):
			want = "kind"
		}
		if got := m.Basis(c); got != want {
			t.Errorf("%s: estimated from %q, want %q", c.Key(), got, want)
		}
		if m.Process(c) <= c.Pause+c.Settle.Window {
			t.Errorf("%s: %s per process, no more than its pause", c.Key(), m.Process(c))
		}
	}
	native := m.Process(cellOf(t, p, "native/sequential/1"))
	firefox := m.Process(cellOf(t, p, "emscripten-firefox/sequential/1"))
	nativeWall := m.Wall(cellOf(t, p, "native/sequential/1"))
	if firefoxWall := m.Wall(cellOf(t, p, "emscripten-firefox/sequential/1")); firefoxWall < 100*nativeWall {
		t.Errorf("a Firefox process %s, a native one %s: want Firefox at least 100 times native", firefox, native)
	}
	c := cellOf(t, p, "native/sequential/1")
	before := Wait(c)
	c.Pause = time.Second // longer than a settle window: the wait is the pause
	if got := m.Process(c); got != native-before+time.Second {
		t.Errorf("a 1s pause: %s per process, want %s + 1s", got, native-before)
	}
	slow := cellOf(t, p, "manual-firefox/parallel/1000")
	slow.Timeout = 5 * time.Second
	if got := m.Process(slow); got != Wait(slow)+RunnerOverhead+5*time.Second {
		t.Errorf("timeout 5s: %s per process", got)
	}
	if got, want := m.Cell(c), time.Duration(c.Total())*m.Process(c); got != want {
		t.Errorf("cell %s, want processes × process = %s", got, want)
	}
	var total time.Duration
	for _, c := range p.Cells {
		total += m.Cell(c)
	}
	if m.Plan(p) != total || total < 10*time.Minute {
		t.Errorf("plan %s, cells sum to %s; the study took over 45 minutes", m.Plan(p), total)
	}
}

// TestInterpolation: n between measured ones lies between their costs,
// beyond the last it grows, an unmeasured environment falls back to its
// kind and an unknown kind to all kinds.
func TestInterpolation(t *testing.T) {
	m := Reference()
	p := studyPlan(t)
	at := func(key string, n int) time.Duration {
		c := cellOf(t, p, key)
		c.N = n
		return m.Process(c)
	}
	lo, mid, hi := at("wasi-threads-node/sequential/100", 100), at("wasi-threads-node/sequential/100", 550), at("wasi-threads-node/sequential/100", 1000)
	if !(lo < mid && mid < hi) {
		t.Errorf("n = 100, 550, 1000: %s, %s, %s: want increasing", lo, mid, hi)
	}
	if far := at("wasi-threads-node/sequential/100", 2000); far <= hi {
		t.Errorf("n = 2000: %s, no more than n = 1000's %s", far, hi)
	}
	c := cellOf(t, p, "wasi-threads-node/sequential/1")
	c.Env.Name = "renamed"
	if m.Basis(c) != "kind" || m.Process(c) <= 10*time.Millisecond {
		t.Errorf("an unmeasured wasi-threads-node environment: %s from %q", m.Process(c), m.Basis(c))
	}
	c.Env.Kind = "someday"
	if m.Basis(c) != "other kinds" || m.Process(c) <= 0 {
		t.Errorf("an unknown kind: %s from %q", m.Process(c), m.Basis(c))
	}
	c.Mode = "never-measured"
	if m.Basis(c) != "" || m.Process(c) != Wait(c)+RunnerOverhead+Unknown {
		t.Errorf("an unknown mode: %s from %q", m.Process(c), m.Basis(c))
	}
}

// synthetic is a model of closed-form costs for the cells of a small
// plan: native (no browser), manual (a warm Chromium page), its cold twin
// and emscripten-chromium (warm), all measured cold, at n = 1 and 100.
func synthetic(t *testing.T) (*Model, *spec.RunPlan) {
	t.Helper()
	s, err := spec.Parse("synthetic.cue", []byte(`environments: [
	{name: "native", kind: "native"},
	{name: "manual", kind: "manual"},
	{name: "manual-cold", kind: "manual", browser_start: "cold"},
	{name: "emscripten-chromium", kind: "emscripten-chromium"},
]
n: [1, 100]
samples: {min: 1, processes: 1}
schedule: settle: cap: "0s"
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(v int64) int64 { return v * 1e6 }
	var pts []Point
	add := func(kind, env, start string, n int, wall int64) {
		pts = append(pts, Point{Kind: kind, Environment: env, Mode: "sequential", Start: start, N: n, Processes: 10, WallNS: ms(wall)})
	}
	add("native", "native", "", 1, 10)
	add("native", "native", "", 100, 30)
	for _, env := range []string{"manual", ""} {
		add("manual", env, hostfacts.Cold, 1, 1000)
		add("manual", env, hostfacts.Cold, 100, 2000)
	}
	for _, env := range []string{"emscripten-chromium", ""} {
		add("emscripten-chromium", env, hostfacts.Cold, 1, 1500)
		add("emscripten-chromium", env, hostfacts.Cold, 100, 2500)
	}
	add("", "", "", 1, 500)
	add("", "", "", 100, 1000)
	return newModel("synthetic", pts), p
}

// TestRescalingIsItsClosedForm: On multiplies every cost by the median
// of the machine's ratios, and a warm browser's page costs its cold twin
// less the host's saving (its cold manual page at n = 1, rescaled, less
// the warm one the machine measured), never less than that warm page;
// Plan adds one browser start (the saving) per warm environment, Range
// is Plan at the smallest and largest ratio, and a curve the machine
// measured itself is used as it is.
func TestRescalingIsItsClosedForm(t *testing.T) {
	m, p := synthetic(t)
	const ms = time.Millisecond
	mc := &Machine{Source: "a test", Ratios: []float64{2.5, 1.5, 2}, Warm: []WarmPage{{Kind: "manual", Host: "chromium", Mode: "sequential", WallNS: int64(300 * ms)}}}
	// Without the machine: the warm cells cost their cold twins.
	if got := m.Wall(cellOf(t, p, "manual/sequential/1")); got != 1000*ms || m.Basis(cellOf(t, p, "manual/sequential/1")) != "cold" {
		t.Errorf("warm manual n=1 without a machine: %s from %q, want its cold 1s", got, m.Basis(cellOf(t, p, "manual/sequential/1")))
	}
	want := func(f float64) (cells map[string]time.Duration, plan time.Duration) {
		d := func(v float64) time.Duration { return time.Duration(v * f * float64(ms)) }
		saving := d(1000) - 300*ms
		cells = map[string]time.Duration{
			"native/sequential/1":                d(10),
			"native/sequential/100":              d(30),
			"manual-cold/sequential/1":           d(1000),
			"manual-cold/sequential/100":         d(2000),
			"manual/sequential/1":                max(d(1000)-saving, 300*ms),
			"manual/sequential/100":              max(d(2000)-saving, 300*ms),
			"emscripten-chromium/sequential/1":   max(d(1500)-saving, 300*ms),
			"emscripten-chromium/sequential/100": max(d(2500)-saving, 300*ms),
		}
		for _, c := range cells {
			plan += c + RunnerOverhead // one process each, no pause or settle
		}
		return cells, plan + 2*saving // two warm environments start a browser each
	}
	on := m.On(mc)
	cells, plan := want(2)
	for key, w := range cells {
		c := cellOf(t, p, key)
		if got := on.Wall(c); got != w {
			t.Errorf("%s: %s, want %s (%s)", key, got, w, on.Basis(c))
		}
	}
	if got := on.Basis(cellOf(t, p, "manual/sequential/100")); got != "cold start" {
		t.Errorf("warm manual n=100 rests on %q, want its cold start less the saving", got)
	}
	if got := on.Plan(p); got != plan {
		t.Errorf("plan %s, want %s", got, plan)
	}
	_, lo := want(1.5)
	_, hi := want(2.5)
	if gotLo, gotHi := on.Range(p); gotLo != lo || gotHi != hi {
		t.Errorf("range %s to %s, want %s to %s", gotLo, gotHi, lo, hi)
	}
	if f, flo, fhi := mc.Factor(); f != 2 || flo != 1.5 || fhi != 2.5 {
		t.Errorf("factor %v (%v to %v), want 2 (1.5 to 2.5)", f, flo, fhi)
	}
	if !strings.Contains(on.Source, "synthetic, rescaled ×2.00 to this machine by a test") {
		t.Errorf("source %q does not say what rescaled it", on.Source)
	}
	// A curve of the machine's own is taken as measured, not rescaled.
	mc.Points = []Point{
		{Kind: "manual", Environment: "manual", Mode: "sequential", Start: hostfacts.Warm, N: 1, WallNS: int64(250 * ms)},
		{Kind: "manual", Environment: "manual", Mode: "sequential", Start: hostfacts.Warm, N: 100, WallNS: int64(900 * ms)},
	}
	own := m.On(mc)
	if got := own.Wall(cellOf(t, p, "manual/sequential/100")); got != 900*ms || own.Basis(cellOf(t, p, "manual/sequential/100")) != "environment" {
		t.Errorf("warm manual n=100 measured here: %s from %q, want 900ms as measured", got, own.Basis(cellOf(t, p, "manual/sequential/100")))
	}
	// No machine, no change.
	if m.On(nil) != m {
		t.Error("On(nil) changed the model")
	}
}

// TestHasWarmNamesEveryBrowser: a machine that measured Chromium's warm
// page but not Firefox's cannot price a plan that starts both warm (plan
// then probes for the browsers).
func TestHasWarmNamesEveryBrowser(t *testing.T) {
	mc := &Machine{Warm: []WarmPage{{Kind: "manual", Host: "chromium", Mode: "sequential", WallNS: 3e8}}}
	if !mc.HasWarm([]string{"chromium"}) || !mc.HasWarm(nil) {
		t.Error("a machine that measured Chromium's warm page reads as not having it")
	}
	if mc.HasWarm([]string{"chromium", "firefox"}) {
		t.Error("a machine with no warm Firefox page reads as having one")
	}
}

// fromSidRoot says whether the cell's environment runs from the sid root
// (engine/env/root.go), which the reference set predates.
func fromSidRoot(t *testing.T, c spec.Cell) bool {
	t.Helper()
	var s struct {
		Root string `json:"root"`
	}
	if err := json.Unmarshal(c.Env.Resolved, &s); err != nil {
		t.Fatal(err)
	}
	return s.Root == "sid"
}

// TestWaitIsOneWaitNotTwo: where a cell settles, its pause is the first
// settle reading's span, so a process waits the longer of the two.
func TestWaitIsOneWaitNotTwo(t *testing.T) {
	c := spec.Cell{Pause: 10 * time.Millisecond, Settle: spec.SettleSpec{Window: 20 * time.Millisecond, Cap: time.Second}}
	if got := Wait(c); got != 20*time.Millisecond {
		t.Errorf("pause 10ms, window 20ms: wait %s, want 20ms", got)
	}
	c.Pause = 80 * time.Millisecond
	if got := Wait(c); got != 80*time.Millisecond {
		t.Errorf("pause 80ms, window 20ms: wait %s, want 80ms", got)
	}
	c.Settle.Cap = 0
	if got := Wait(c); got != 80*time.Millisecond {
		t.Errorf("settling off: wait %s, want the pause", got)
	}
}
