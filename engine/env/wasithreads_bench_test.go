package env_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"
	"time"

	"spawnbench"
	"spawnbench/engine/env"

	"cuelang.org/go/cue/cuecontext"
)

// TestSpawnRatioFigures prints native and wasi-threads spawn times side
// by side from one run. It measures rather than asserts, so it only runs
// when asked:
//
//	SPAWNBENCH_FIGURES=1 go test -run TestSpawnRatioFigures -v ./engine/env/
//
// SPAWNBENCH_FIGURES_PROCESSES sets the processes per cell (default 10);
// SPAWNBENCH_FIGURES_KNOBS=1 adds host knob combinations;
// SPAWNBENCH_FIGURES_WASMTIME_CLI=/path/to/wasmtime adds that Wasmtime CLI
// (one that still has -S threads, e.g. 46.0.1) running the same modules.
// Processes of all environments are interleaved so drifting machine load
// hits them alike.
func TestSpawnRatioFigures(t *testing.T) {
	if os.Getenv("SPAWNBENCH_FIGURES") == "" {
		t.Skip("set SPAWNBENCH_FIGURES=1 to measure")
	}
	processes := 10
	if s := os.Getenv("SPAWNBENCH_FIGURES_PROCESSES"); s != "" {
		fmt.Sscan(s, &processes)
	}
	f := setUpWasiThreads(t)

	type subject struct {
		name     string
		env      *env.Environment
		buildDir string
	}
	native := newNative(t)
	nativeDir := filepath.Join(t.TempDir(), "native")
	srcDir := filepath.Join(t.TempDir(), "src")
	if err := spawnbench.Sources.WriteTo(srcDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(nativeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := native.Build(context.Background(), srcDir, nativeDir); err != nil {
		t.Fatal(err)
	}
	// The second subject is the one the ratios are about: the host with a
	// fresh OS thread per spawn, as Wasmtime does.
	subjects := []subject{{"native", native, nativeDir},
		{"wasi-threads fresh", newWasiThreads(t, `, host_threads: "fresh"`), f.buildDir}}
	if os.Getenv("SPAWNBENCH_FIGURES_KNOBS") != "" {
		for _, knobs := range []string{
			// Against the default (fresh OS threads, instance on the child).
			`instantiate_on: "parent"`,
			`host_threads: "reuse"`,
			`host_threads: "reuse", instantiate_on: "parent"`,
			`allocation: "pooling"`,
			`host_threads: "reuse", prestart_threads: 1`,
			`host_threads: "reuse", idle_spin: "50us"`,
		} {
			subjects = append(subjects, subject{"wasi-threads " + knobs, newWasiThreads(t, ", "+knobs), f.buildDir})
		}
	}

	if cli := os.Getenv("SPAWNBENCH_FIGURES_WASMTIME_CLI"); cli != "" {
		settings, err := json.Marshal(map[string]any{
			"run": []string{cli, "run", "-W", "threads=y,shared-memory=y", "-S", "threads=y",
				filepath.Join(f.buildDir, "{bench}.wasm"), "{arg}"},
		})
		if err != nil {
			t.Fatal(err)
		}
		e, err := env.New("wasmtime-cli", "command", "command", "command", cuecontext.New().CompileBytes(settings))
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, subject{"wasmtime CLI " + filepath.Base(cli), e, f.buildDir})
	}

	type cell struct {
		label string
		b     env.Benchmark
		n     int
		// pick selects the samples that count from one process's spawns.
		pick func([][3]int64) []int64
	}
	spawnNs := func(rows [][3]int64) []int64 {
		out := make([]int64, len(rows))
		for i, r := range rows {
			out[i] = r[0]
		}
		return out
	}
	cells := []cell{
		{"sequential n=1000, last 10", env.Sequential, 1000, func(r [][3]int64) []int64 { return spawnNs(r[len(r)-10:]) }},
		{"parallel n=1000, all", env.Parallel, 1000, spawnNs},
		{"sequential n=1, first thread", env.Sequential, 1, spawnNs},
	}
	for _, c := range cells {
		reps := processes
		if c.n == 1 {
			reps = 3 * processes
		}
		samples := make([][]int64, len(subjects))
		for rep := 0; rep < reps; rep++ {
			for i, s := range subjects {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				out, err := s.env.Run(ctx, env.Repetition{Benchmark: c.b, Arg: c.n, BuildDir: s.buildDir})
				cancel()
				if err != nil || out.ExitCode != 0 {
					t.Fatalf("%s %s: %v exit %d stderr %q", s.name, c.label, err, out.ExitCode, out.Stderr)
				}
				samples[i] = append(samples[i], c.pick(parseSpawns(t, out.Stdout))...)
			}
		}
		base, embedded := median(samples[0]), median(samples[1])
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%d processes each)\n", c.label, reps)
		for i, s := range subjects {
			m := median(samples[i])
			fmt.Fprintf(&b, "  %-58s median spawn_ns %9.0f  p25 %9.0f  p75 %9.0f  this÷native %6.2f  wasi-threads÷this %6.2f\n",
				s.name, m, quantile(samples[i], 0.25), quantile(samples[i], 0.75), m/base, embedded/m)
		}
		t.Log("\n" + b.String())
	}
}

func newNative(t testing.TB) *env.Environment {
	t.Helper()
	fulltest.Only(t, "builds with gcc")
	e, err := env.New("native", "native", "native", "os", cuecontext.New().CompileString(`{"name":"native","kind":"native","cc":"gcc","cflags":["-O2"]}`))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func median(v []int64) float64 { return quantile(v, 0.5) }

// quantile interpolates linearly between the closest ranks.
func quantile(v []int64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return float64(s[lo])
	}
	frac := pos - float64(lo)
	return float64(s[lo])*(1-frac) + float64(s[lo+1])*frac
}

// TestHostPhaseFigures prints where a fresh-thread spawn's time goes in
// the embedded host, phase by phase (medians over every spawn but the
// first 10 of each process), next to native pthread_create, from
// processes run in alternation. It measures rather than asserts:
//
//	SPAWNBENCH_PHASES=1 go test -run TestHostPhaseFigures -v ./engine/env/
//
// SPAWNBENCH_FIGURES_PROCESSES sets the processes per side (default 10)
// and SPAWNBENCH_PHASES_N the spawns per process (default 1000). The
// host runs with --trace, whose report is written by each child after its
// first clock read, so it does not delay the phases it reports.
func TestHostPhaseFigures(t *testing.T) {
	if os.Getenv("SPAWNBENCH_PHASES") == "" {
		t.Skip("set SPAWNBENCH_PHASES=1 to measure")
	}
	processes, n := 10, 1000
	if s := os.Getenv("SPAWNBENCH_FIGURES_PROCESSES"); s != "" {
		fmt.Sscan(s, &processes)
	}
	if s := os.Getenv("SPAWNBENCH_PHASES_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	f := setUpWasiThreads(t)
	native := newNative(t)
	nativeDir := filepath.Join(t.TempDir(), "native")
	srcDir := filepath.Join(t.TempDir(), "src")
	if err := spawnbench.Sources.WriteTo(srcDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(nativeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := native.Build(context.Background(), srcDir, nativeDir); err != nil {
		t.Fatal(err)
	}
	exe, err := env.HostExecutable()
	if err != nil {
		t.Fatal(err)
	}
	// Trace fields, in ns after thread-spawn was entered.
	names := []string{"spawn returned", "thread running", "store ready", "instantiated", "first clock read"}
	var nativeSpawn, hostSpawn []int64
	phases := make([][]int64, 5) // OS thread start, Store+WASI, instantiation, to first clock, total
	for p := 0; p < processes; p++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := native.Run(ctx, env.Repetition{Benchmark: env.Sequential, Arg: n, BuildDir: nativeDir})
		cancel()
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("native: %v exit %d", err, out.ExitCode)
		}
		for _, r := range parseSpawns(t, out.Stdout)[10:] {
			nativeSpawn = append(nativeSpawn, r[0])
		}
		cmd := exec.Command(exe, "wasmtime", "--threads", "fresh", "--trace", filepath.Join(f.buildDir, "sequential.wasm"), strconv.Itoa(n))
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("host: %v; stderr %q", err, stderr.String())
		}
		for _, r := range parseSpawns(t, []byte(stdout.String()))[10:] {
			hostSpawn = append(hostSpawn, r[0])
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			var tid int
			if _, err := fmt.Sscanf(line, "# trace thread %d", &tid); err != nil || tid <= 10 {
				continue
			}
			at := map[string]int64{}
			for _, name := range names {
				i := strings.Index(line, name+" ")
				if i < 0 {
					t.Fatalf("trace line %q has no %q", line, name)
				}
				var v int64
				fmt.Sscan(strings.TrimRight(line[i+len(name)+1:], ","), &v)
				at[name] = v
			}
			phases[0] = append(phases[0], at["thread running"])
			phases[1] = append(phases[1], at["store ready"]-at["thread running"])
			phases[2] = append(phases[2], at["instantiated"]-at["store ready"])
			phases[3] = append(phases[3], at["first clock read"]-at["instantiated"])
			phases[4] = append(phases[4], at["first clock read"])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sequential n=%d, %d processes per side in alternation, spawns 11..n of each (medians, ns)\n", n, processes)
	for i, label := range []string{
		"OS thread start (thread-spawn entered -> new thread running)",
		"Wasmtime per-thread setup (Store + WASI context)",
		"instantiation (InstancePre)",
		"entry to the child's first clock read",
		"host total (thread-spawn entered -> first clock read)",
	} {
		fmt.Fprintf(&b, "  %-62s %9.0f\n", label, median(phases[i]))
	}
	nm, hm := median(nativeSpawn), median(hostSpawn)
	fmt.Fprintf(&b, "  %-62s %9.0f\n", "wasi-threads spawn_ns (guest pthread_create -> child clock)", hm)
	fmt.Fprintf(&b, "  %-62s %9.0f\n", "native spawn_ns (pthread_create -> child clock)", nm)
	fmt.Fprintf(&b, "  %-62s %9.2f\n", "wasi-threads / native", hm/nm)
	t.Log("\n" + b.String())
}
