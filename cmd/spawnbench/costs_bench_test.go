package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"

	"spawnbench/engine/cost"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
)

// benchSetsVariable names a directory to write the ten synthetic sets of
// TestRunBesideManySets into and keep, for timing a run beside them by
// hand (for example with /usr/bin/time -v, from that directory).
const benchSetsVariable = "SPAWNBENCH_BENCH_SETS"

// peakRole makes this test binary a launcher (see reexec) that runs the
// command peakVariable holds (its words joined by the unit separator,
// 0x1f) and then prints the command's peak resident size (its rusage's
// maxrss): the launcher is a fresh process, so its child's figure is the
// command's own.
const (
	peakRole     = "test-peak-of"
	peakVariable = "SPAWNBENCH_TEST_PEAK_OF"
)

func init() { reexec.Register(peakRole, launchForPeak) }

func launchForPeak() int {
	args := strings.Split(os.Getenv(peakVariable), "\x1f")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("\npeak resident %d KB\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	return 0
}

// benchSpawns is what each synthetic set holds: as many spawns as a
// middling study's set.
const benchSpawns = 200_000

// TestRunBesideManySets: a one-process run started from a directory
// whose results/ holds ten sets this machine measured (200,000 spawns
// each) rescales its costs by them, reading their cost summaries and not
// their samples, and so stays as small as the same run from an empty
// directory: under 100 MB resident, with the summaries and with sets
// written before them alike (which are summarized from runs.parquet). The
// wall times are logged, not judged: the machine may be busy.
func TestRunBesideManySets(t *testing.T) {
	fulltest.Only(t, "writes ten sets of 200,000 spawns and runs spawnbench beside them")
	t.Parallel()
	root := os.Getenv(benchSetsVariable)
	if root == "" {
		root = t.TempDir()
	}
	beside, old, empty := filepath.Join(root, "beside"), filepath.Join(root, "beside-old"), filepath.Join(root, "empty")
	writeBenchSets(t, filepath.Join(beside, "results"), 10)
	for k := range 10 {
		copySet(t, filepath.Join(beside, "results", "set-0"), filepath.Join(old, "results", fmt.Sprintf("set-%d", k)), results.CostsFile)
	}
	for _, d := range []string{beside, old, empty} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeSpec(t, d, "name: \"tiny\"\nenvironments: [{name: \"native\", kind: \"native\"}]\nmodes: [\"sequential\"]\nn: [1]\nsamples: {min: 1, processes: 1, warmup: 0}\n")
	}
	if os.Getenv(benchSetsVariable) != "" {
		t.Logf("sets in %s (with cost summaries) and %s (without); time `%s run s.cue -o out` from there against the same from %s", beside, old, binary(t), empty)
	}
	cache := filepath.Join(root, ".cache") // one probe and build cache for all
	measure := func(dir string, command ...string) (time.Duration, int64, string) {
		t.Helper()
		os.RemoveAll(filepath.Join(dir, "out"))
		// Through a launcher of its own: a child of this process would
		// count this process's own peak (the sets it wrote) as its own.
		cmd, err := reexec.Command(peakRole)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Dir = dir
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache, peakVariable+"="+strings.Join(command, "\x1f"))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			t.Fatalf("%v from %s: %v\n%s", command, dir, err, out)
		}
		m := regexp.MustCompile(`peak resident (\d+) KB`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%v from %s: the launcher said no peak:\n%s", command, dir, out)
		}
		kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return wall, kb << 10, string(out)
	}
	tiny := []string{binary(t), "run", "s.cue", "-o", "out"}
	measure(empty, tiny...) // builds native and probes the machine, once
	_, floor, _ := measure(empty, "true")
	for _, c := range []struct{ what, dir string }{{"sets with their cost summaries", beside}, {"sets written before cost summaries", old}} {
		wall, rss, out := measure(c.dir, tiny...)
		if !strings.Contains(out, "by 10 result set(s) measured here") {
			t.Fatalf("%s: the run did not rescale by the ten sets:\n%s", c.what, out)
		}
		emptyWall, emptyRSS, _ := measure(empty, tiny...)
		t.Logf("%s: beside ten sets %s, %d MB resident; from an empty directory %s, %d MB (no figure reads below the launcher's own %d MB)",
			c.what, wall.Round(time.Millisecond), rss>>20, emptyWall.Round(time.Millisecond), emptyRSS>>20, floor>>20)
		if rss > 100<<20 {
			t.Errorf("%s: a one-process run beside ten sets peaked at %d MB resident, want under 100 MB (from an empty directory: %d MB)", c.what, rss>>20, emptyRSS>>20)
		}
	}
}

// writeBenchSets writes count result sets of benchSpawns spawns each into
// dir, as this machine's: five environments of the reference set, both
// modes, n = 1, 10, 100 and 1000, wall times about the reference's. The
// first is written through a Writer, the rest are copies of it: a reader
// of the directory reads each all the same.
func writeBenchSets(t *testing.T, dir string, count int) {
	t.Helper()
	first := filepath.Join(dir, "set-0")
	w, err := results.Open(first)
	if err != nil {
		t.Fatal(err)
	}
	m := run.Machine()
	inv, err := w.Begin(results.Invocation{Command: "run", SpecName: "bench", Machine: m, StartedAt: time.Now().UTC(), Toolchains: map[string]string{}, Skipped: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	walls := map[string]int64{}
	for _, p := range cost.Reference().Points {
		walls[fmt.Sprintf("%s/%s/%d", p.Environment, p.Mode, p.N)] = p.WallNS
	}
	rng := rand.New(rand.NewPCG(1, 2))
	envs := []struct{ name, kind, payload, host string }{
		{"native", "native", "native", "os"},
		{"wasi-threads", "wasi-threads", "wasi-freestanding", "wasmtime"},
		{"wasmtime-46", "wasmtime-cli", "wasi-freestanding", "wasmtime-cli"},
		{"emscripten", "emscripten", "emscripten", "node"},
		{"manual-node", "manual-node", "manual", "node"},
	}
	// Processes per n: 20 at n = 1, 18 above, 20,000 spawns an
	// environment and mode.
	processes := map[int]int{1: 20, 10: 18, 100: 18, 1000: 18}
	spawns, seq := 0, 0
	for _, e := range envs {
		for _, mode := range []string{"sequential", "parallel"} {
			for _, n := range []int{1, 10, 100, 1000} {
				wall := walls[fmt.Sprintf("%s/%s/%d", e.name, mode, n)]
				if wall == 0 {
					t.Fatalf("the reference has no %s/%s/%d", e.name, mode, n)
				}
				for p := range processes[n] {
					lines := make([]protocol.Line, n)
					for i := range lines {
						spawn, create := int64(20_000+rng.IntN(40_000)), int64(5_000+rng.IntN(10_000))
						joined := spawn + int64(rng.IntN(30_000))
						parent, child := int32(rng.IntN(2)), int32(rng.IntN(2))
						lines[i] = protocol.Line{SpawnNS: spawn, CreateNS: &create, JoinedNS: &joined, ParentCPU: &parent, ChildCPU: &child}
					}
					row := results.ProcessRun{
						Environment: e.name, Kind: e.kind, Payload: e.payload, Host: e.host, Mode: mode, N: int32(n), Process: int32(p),
						Status: results.StatusOK, WallNS: wall * int64(90+rng.IntN(20)) / 100, StartedAt: time.Now().UTC(), Seq: int32(seq), Invocation: inv, Machine: m.ID,
					}
					if err := w.Process(row, lines); err != nil {
						t.Fatal(err)
					}
					spawns += n
					seq++
				}
			}
		}
	}
	if spawns != benchSpawns {
		t.Fatalf("wrote %d spawns, want %d", spawns, benchSpawns)
	}
	if err := w.End(inv, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for k := 1; k < count; k++ {
		copySet(t, first, filepath.Join(dir, fmt.Sprintf("set-%d", k)), "")
	}
}

// copySet copies the files of the set in from into to, but skip.
func copySet(t *testing.T, from, to, skip string) {
	t.Helper()
	names, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		if e.Name() == skip {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
