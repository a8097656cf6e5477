package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/trace"
	"spawnbench/engine/wasmhost"
	"spawnbench/internal/fulltest"
)

// A run as root traces its @traced environments and no other: every
// process of a traced twin is traced, and in at least 95% of the spawns
// of every traced host (native, the embedded Wasmtime, the Wasmtime CLI
// 46, WAMR, Node.js's raw workers and the JavaScript wasi-threads host
// in Node.js; sequential and parallel; free and on one CPU) the kernel's
// times keep call <= new task <= wake-up <= first run <= first
// instruction within the host's clock step, each spawn having made a new
// OS thread; wazero's spawns, goroutines, make none (the trace says so,
// its clock put on CLOCK_MONOTONIC through #sync). The untraced
// environments' rows carry no trace.
func TestTracedRunInOrder(t *testing.T) {
	fulltest.Only(t, "builds real payloads and traces real runtimes")
	if _, err := trace.Open(); err != nil {
		t.Skipf("cannot trace here: %v", err)
	}
	env.HostExecutable = func() (string, error) { return fulltest.Spawnbench(t), nil }
	// Every traced twin, beside two untraced environments, an OS host and
	// a Wasm one, whose rows must carry no trace: the untraced rows of the
	// other hosts would take as long again and check the same choice (the
	// runner's, by the environment's name), not their host. One n of two
	// processes in each mode: each process's first spawn (thread 0) is a
	// first spawn, its later ones are the later spawns the checks below
	// count, so an n = 1 cell and a longer n would only add spawns of the
	// same two kinds (40 traced spawns a host, 95% of them needed, as of
	// the 186 that n = [1, 30] over three processes gave).
	untracedToo := []string{"*" + spec.TracedSuffix, "native", "wasi-threads"}
	set, _, err := runSpec(t, context.Background(), `
environments: [
	{name: "native", kind: "native"},
	{name: "wasi-threads", kind: "wasi-threads"},
	{name: "wasmtime-46", kind: "wasmtime-cli", wasmtime: "wasmtime-46"},
	{name: "wamr", kind: "wamr"},
	{name: "wazero", kind: "wazero"},
	{name: "manual-node", kind: "manual-node"},
	{name: "wasi-threads-node", kind: "wasi-threads-node"},
	{name: "emscripten", kind: "emscripten"},
]
modes: ["sequential", "parallel"]
n: [10]
samples: {min: 1, processes: 2, pause: "1ms"}
schedule: settle: cap: "0s"
placement: {one_cpu: ["native"]}
anatomy: traced: ["native", "wasi-threads", "wasmtime-46", "wamr", "wazero", "manual-node", "wasi-threads-node", "emscripten", "native@one-cpu"]
`, untracedToo...)
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.Invocations[len(set.Provenance.Invocations)-1]
	for _, must := range []string{"native@traced", "wasi-threads@traced"} {
		if why, skipped := inv.Skipped[must]; skipped {
			t.Fatalf("%s was skipped: %s", must, why)
		}
	}
	runs := map[string]int{}
	for _, r := range set.Runs {
		traced := strings.HasSuffix(r.Environment, "@traced")
		if r.Traced != traced {
			t.Errorf("%s %s n=%d process %d: traced %v (note %q)", r.Environment, r.Mode, r.N, r.Process, r.Traced, r.TraceNote)
		}
		if traced {
			runs[r.Environment]++
		}
	}
	type tally struct{ spawns, newOS, inOrder, firstNewOS, firsts, seqLater, seqLaterNewOS int }
	by := map[string]*tally{}
	untraced := map[string]int{}
	for _, s := range set.Samples {
		if !strings.HasSuffix(s.Environment, "@traced") {
			untraced[s.Environment]++
			if s.NewOSThread != nil || s.TaskNewNS != nil {
				t.Errorf("%s: an untraced spawn carries a trace", s.Environment)
			}
			continue
		}
		g := by[s.Environment]
		if g == nil {
			g = &tally{}
			by[s.Environment] = g
		}
		g.spawns++
		made := s.NewOSThread != nil && *s.NewOSThread
		switch {
		case s.Thread == 0:
			g.firsts++
			if made {
				g.firstNewOS++
			}
		case s.Mode == "sequential":
			g.seqLater++
			if made {
				g.seqLaterNewOS++
			}
		}
		if s.NewOSThread == nil || !*s.NewOSThread {
			continue
		}
		g.newOS++
		a := trace.Anatomy{NewOSThread: true, TaskNewNS: s.TaskNewNS, TaskWakeupNS: s.TaskWakeupNS, TaskFirstRunNS: s.TaskFirstRunNS}
		if trace.InOrder(a, s.SpawnNS, max(s.ClockStepNS, 1)) {
			g.inOrder++
		}
	}
	if untraced["native"] == 0 || untraced["wasi-threads"] == 0 {
		t.Errorf("untraced spawns %v: want native's and wasi-threads'", untraced)
	}
	// A goroutine's start makes no OS thread unless Go's scheduler then
	// starts one (a new M), now and then.
	if g := by["wazero@traced"]; g == nil || g.spawns == 0 || 2*g.newOS >= g.spawns {
		t.Errorf("wazero@traced: %+v; want its spawns traced, most of them no new OS thread (they are goroutines)", g)
	} else {
		t.Logf("wazero@traced: %d spawns, %d made a new OS thread", g.spawns, g.newOS)
	}
	// Emscripten starts a worker for a process's first spawn and reuses
	// exited ones after: a new OS thread first, mostly none after in
	// sequential mode (in parallel mode every thread needs a worker of
	// its own); the spawns that made one are in order.
	if _, skipped := inv.Skipped["emscripten@traced"]; !skipped {
		g := by["emscripten@traced"]
		switch {
		case g == nil || g.firsts == 0:
			t.Errorf("emscripten@traced: no traced spawns")
		case g.firstNewOS != g.firsts || 2*g.seqLaterNewOS >= g.seqLater || 100*g.inOrder < 95*g.newOS:
			t.Errorf("emscripten@traced: %+v; want every first spawn a new OS thread, most later ones none, those that made one in order", g)
		default:
			t.Logf("emscripten@traced: %+v", g)
		}
	}
	for _, e := range []string{"native@traced", "native@one-cpu@traced", "wasi-threads@traced", "wasmtime-46@traced", "wamr@traced", "manual-node@traced", "wasi-threads-node@traced"} {
		if why, skipped := inv.Skipped[e]; skipped {
			t.Logf("%s skipped: %s", e, why)
			continue
		}
		g := by[e]
		if g == nil || runs[e] == 0 {
			t.Errorf("%s: no traced spawns", e)
			continue
		}
		t.Logf("%s: %d processes traced, %d spawns, %d made a new OS thread, %d in order", e, runs[e], g.spawns, g.newOS, g.inOrder)
		if 100*g.newOS < 95*g.spawns || 100*g.inOrder < 95*g.spawns {
			t.Errorf("%s: of %d spawns, %d made a new OS thread and %d are in order; want at least 95%% each", e, g.spawns, g.newOS, g.inOrder)
		}
	}
}

// The same spec run by an ordinary user completes, measures the traced
// twins untraced, a process's and a browser page's (Chromium's raw
// workers, where Chromium is installed), and says why in every one of
// their rows; no spawn carries a trace. Two processes of one n each: a
// second process of each twin is a row that must say why too.
func TestOrdinaryUserRunsUntraced(t *testing.T) {
	fulltest.Only(t, "runs spawnbench's binary as another user")
	// Parallel: it traces nothing, so it need not run alone as the traced
	// tests do; it runs beside the package's parallel tests, after them.
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run spawnbench as an ordinary user (nobody)")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "spawnbench-trace-user-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exe := filepath.Join(dir, "spawnbench")
	if err := fulltest.CopyExecutable(fulltest.Spawnbench(t), exe); err != nil {
		t.Fatal(err)
	}
	specFile := filepath.Join(dir, "u.cue")
	if err := os.WriteFile(specFile, []byte(`name: "u"
environments: [{name: "native", kind: "native"}, {name: "manual", kind: "manual"}]
modes: ["sequential"]
n: [10]
samples: {min: 1, processes: 2, pause: "1ms"}
schedule: settle: cap: "0s"
anatomy: traced: ["native", "manual"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(exe, "run", specFile, "-o", out, "--costs", fulltest.ReferenceCosts(t, dir))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stdout, stderr, code := fulltest.Run(t, cmd)
	if code != 0 {
		t.Fatalf("spawnbench run as nobody: exit %d\n%s\n%s", code, stdout, stderr)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	twins := map[string]int{}
	for _, r := range set.Runs {
		if r.Traced {
			t.Errorf("%s process %d: traced as an ordinary user", r.Environment, r.Process)
		}
		if strings.HasSuffix(r.Environment, spec.TracedSuffix) {
			twins[r.Environment]++
			if !strings.Contains(r.TraceNote, "not root") || r.Status != results.StatusOK {
				t.Errorf("%s process %d: status %s, trace_note %q; want ok, and why it was not traced", r.Environment, r.Process, r.Status, r.TraceNote)
			}
		} else if r.TraceNote != "" {
			t.Errorf("%s: trace_note %q on an environment that is not traced", r.Environment, r.TraceNote)
		}
	}
	skipped := set.Provenance.Invocations[len(set.Provenance.Invocations)-1].Skipped
	for _, twin := range []string{"native@traced", "manual@traced"} {
		if why, ok := skipped[twin]; ok && twin == "manual@traced" {
			t.Logf("%s skipped: %s", twin, why)
			continue
		}
		if twins[twin] != 2 {
			t.Errorf("%d processes of %s, want 2", twins[twin], twin)
		}
	}
	for _, s := range set.Samples {
		if s.NewOSThread != nil || s.TaskNewNS != nil {
			t.Fatalf("%s: a spawn carries a trace", s.Environment)
		}
	}
	if !strings.Contains(stderr+stdout, "not tracing the @traced environments: not root") {
		t.Errorf("the run did not say once why it does not trace:\n%s", stderr)
	}
}

// The embedded Wasmtime's traced processes carry its own phases in the
// new thread (thread_start, store, instance, guest_entry): in at least
// 95% of the spawns that made a new OS thread they are all there, in
// order, the first ending no earlier than the kernel's first run and the
// last at the child's first clock reading (spawn_ns), so that they split
// the in-thread part; untraced processes carry none. The report splits
// the embedded host's in_thread part into them.
func TestEmbeddedHostPhasesSplitTheNewThread(t *testing.T) {
	fulltest.Only(t, "builds a real payload and traces the embedded Wasmtime")
	if _, err := trace.Open(); err != nil {
		t.Skipf("cannot trace here: %v", err)
	}
	env.HostExecutable = func() (string, error) { return fulltest.Spawnbench(t), nil }
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}, {name: "wasi-threads", kind: "wasi-threads"}]
modes: ["sequential", "parallel"]
n: [1, 30]
samples: {min: 1, processes: 3, pause: "1ms"}
schedule: settle: cap: "0s"
anatomy: traced: ["wasi-threads"]
`)
	if err != nil {
		t.Fatal(err)
	}
	slack := int64(1)
	var spawns, inOrder int
	var sums [4]float64
	for _, s := range set.Samples {
		if s.Environment != "wasi-threads@traced" {
			if s.Phases != nil {
				t.Fatalf("%s: an untraced spawn carries phases %v", s.Environment, s.Phases)
			}
			continue
		}
		if s.Warmup || s.NewOSThread == nil || !*s.NewOSThread {
			continue
		}
		spawns++
		parts, ok := report.SpawnParts(s)
		phases, _ := report.SpawnPhases(s)
		if !ok || len(phases) != len(wasmhost.PhaseNames) {
			continue
		}
		good := s.Phases[len(s.Phases)-1].EndNS == s.SpawnNS
		var sum int64
		for i, p := range phases {
			good = good && p.Name == wasmhost.PhaseNames[i] && p.EndNS >= -slack
			sum += p.EndNS
		}
		if good && sum == parts[3] {
			inOrder++
			for i, p := range phases {
				sums[i] += float64(p.EndNS) / 1e3
			}
		}
	}
	t.Logf("wasi-threads@traced: %d spawns made a new OS thread, %d have the host's phases in order within the new thread; mean phases %v µs",
		spawns, inOrder, func() (m [4]string) {
			for i := range sums {
				m[i] = fmt.Sprintf("%s %.1f", wasmhost.PhaseNames[i], sums[i]/float64(max(inOrder, 1)))
			}
			return m
		}())
	if spawns == 0 || 100*inOrder < 95*spawns {
		t.Errorf("of %d traced spawns that made a new OS thread, %d have the host's phases in order within the in-thread part; want at least 95%%", spawns, inOrder)
	}
	r := reporttest.Build(t, set)
	if r.Anatomy == nil {
		t.Fatal("the report has no anatomy")
	}
	split := 0
	for _, row := range r.Anatomy.Rows {
		for _, p := range row.Parts {
			if p.Name == report.PartInThread && len(p.Phases) == len(wasmhost.PhaseNames) {
				split++
			}
		}
	}
	if split != 2 {
		t.Errorf("%d anatomy rows split in_thread into the host's phases, want 2 (the first spawn and the steady state)", split)
	}
}

// Chromium's raw workers, traced: the page's renderer, which the warm
// browser started before the page, is followed from before the page's
// first script, so every spawn is traced, a first spawn too. Each made a
// new OS thread (a dedicated worker is a thread of the renderer), and in
// at least 95% of the spawns call <= new task <= wake-up <= first run <=
// first instruction within the page's clock step and the alignment's
// error (the page's clock is put on CLOCK_MONOTONIC through its wall
// clock, performance.timeOrigin + now()).
func TestTracedBrowserSpawnsInOrder(t *testing.T) {
	fulltest.Only(t, "opens real pages in Chromium and traces its renderer")
	if _, err := trace.Open(); err != nil {
		t.Skipf("cannot trace here: %v", err)
	}
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "manual", kind: "manual"}]
modes: ["sequential"]
n: [1, 10]
samples: {min: 1, processes: 3, pause: "1ms"}
schedule: settle: cap: "0s"
anatomy: traced: ["manual"]
`, "manual@traced")
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.Invocations[len(set.Provenance.Invocations)-1]
	if why, skipped := inv.Skipped["manual@traced"]; skipped {
		t.Skipf("manual@traced skipped: %s", why)
	}
	processes := 0
	for _, r := range set.Runs {
		if r.Warmup {
			continue
		}
		processes++
		if !r.Traced || r.Status != results.StatusOK || r.RendererPID == nil {
			t.Errorf("%s n=%d process %d: status %s, traced %v, renderer %v (note %q); want ok and traced", r.Environment, r.N, r.Process, r.Status, r.Traced, r.RendererPID, r.TraceNote)
		}
	}
	var spawns, newOS, inOrder, firsts int
	var sums [4]float64
	for _, s := range set.Samples {
		if s.Warmup {
			continue
		}
		spawns++
		if s.Thread == 0 {
			firsts++
		}
		if s.NewOSThread == nil || !*s.NewOSThread {
			continue
		}
		newOS++
		a := trace.Anatomy{NewOSThread: true, TaskNewNS: s.TaskNewNS, TaskWakeupNS: s.TaskWakeupNS, TaskFirstRunNS: s.TaskFirstRunNS}
		// Both ends of the page's span are on its coarsened clock, its
		// origin coarsened too: two steps.
		if trace.InOrder(a, s.SpawnNS, 2*s.ClockStepNS) {
			inOrder++
			if parts, ok := report.SpawnParts(s); ok {
				for i, p := range parts {
					sums[i] += float64(p) / 1e3
				}
			}
		}
	}
	t.Logf("manual@traced: %d processes, %d spawns (%d first), %d made a new OS thread, %d in order; mean parts (before, kernel, scheduler, in thread) %.1f %.1f %.1f %.1f µs",
		processes, spawns, firsts, newOS, inOrder, sums[0]/float64(max(inOrder, 1)), sums[1]/float64(max(inOrder, 1)), sums[2]/float64(max(inOrder, 1)), sums[3]/float64(max(inOrder, 1)))
	if processes == 0 || firsts == 0 || 100*newOS < 95*spawns || 100*inOrder < 95*spawns {
		t.Errorf("manual@traced: of %d spawns, %d made a new OS thread and %d are in order; want at least 95%% each, first spawns among them", spawns, newOS, inOrder)
	}
}
