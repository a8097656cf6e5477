package render

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// fixtureStart is when every fixture run started.
var fixtureStart = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// fixtureProvenance is what a runner records: one run invocation, with
// the skipped environments and toolchains given as JSON objects ("" for
// none).
func fixtureProvenance(skipped, toolchains string) results.Provenance {
	ended := fixtureStart.Add(20 * time.Minute)
	inv := results.Invocation{
		ID: 1, Command: "run", Args: []string{"run", "specs/sequential.cue"},
		SpecPath: "specs/sequential.cue", SpecName: "sequential", SpecHash: "0123456789abcdef0123456789abcdef",
		Views: results.Views{Last: 10, MinN: 100}, Version: "test", Order: "interleave", Seed: 1,
		Machine:   results.Machine{CPUModel: "Test CPU", Cores: 2, Kernel: "6.1.0-test", Arch: "amd64", GoVersion: "go1.26.8"},
		StartedAt: fixtureStart, EndedAt: &ended,
	}
	mustJSON(skipped, &inv.Skipped)
	mustJSON(toolchains, &inv.Toolchains)
	return results.Provenance{Format: results.FormatVersion, Invocations: []results.Invocation{inv}}
}

func mustJSON(s string, v any) {
	if s == "" {
		return
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		panic(err)
	}
}

// cellSpec describes the processes of one fixture cell.
type cellSpec struct {
	env, mode string
	n         int32
	processes int
	// statuses overrides the status of the first processes; a process
	// whose status is not ok prints no samples.
	statuses []string
	// spawnNS gives the spawn time of (process, thread).
	spawnNS func(process, thread int) int64
	// untrusted flags samples as clock_trusted = false.
	untrusted bool
	// failedSpawns makes failed processes print their spawns too, as a
	// process that crashes after its last line does.
	failedSpawns bool
	// others and steal give a process's others_cpu_ns and steal_ns as a
	// share of its wall time; nil records neither.
	others, steal func(process int) float64
	// wallNS is every process's wall time (default 1 ms).
	wallNS int64
	// startEvery spaces the processes' start times (default: all at
	// once, which leaves a cell no drift test).
	startEvery time.Duration
}

// addCell appends one cell's runs and samples to s, plus a warm-up process
// with absurd times that must never reach any statistic.
func addCell(s *results.Set, c cellSpec) {
	for p := 0; p < c.processes; p++ {
		status := results.StatusOK
		if p < len(c.statuses) {
			status = c.statuses[p]
		}
		run := results.ProcessRun{
			Environment: c.env, Kind: c.env, Mode: c.mode, N: c.n, Process: int32(p),
			Status: status, WallNS: 1e6, StartedAt: fixtureStart.Add(time.Duration(p) * c.startEvery),
		}
		if c.wallNS > 0 {
			run.WallNS = c.wallNS
		}
		if c.others != nil {
			v := int64(c.others(p) * float64(run.WallNS))
			run.OthersCPUNS = &v
		}
		if c.steal != nil {
			v := int64(c.steal(p) * float64(run.WallNS))
			run.StealNS = &v
		}
		if status == results.StatusOK || c.failedSpawns {
			spawns := make([]int64, c.n)
			for t := range spawns {
				spawns[t] = c.spawnNS(p, t)
			}
			// As the journal stores it: what the report and the busy rule
			// read.
			run.Summarize(spawns)
			for t := 0; t < int(c.n); t++ {
				v := spawns[t]
				joined := v + 1000
				s.Samples = append(s.Samples, results.SpawnSample{
					Environment: c.env, Kind: c.env, Mode: c.mode, N: c.n, Process: int32(p), Thread: int32(t),
					SpawnNS: v, JoinedNS: &joined, ClockTrusted: !c.untrusted,
				})
			}
		}
		if status != results.StatusOK {
			run.ExitCode = 1
			run.Error = "fixture: process ended " + status + " | with a pipe"
		}
		s.Runs = append(s.Runs, run)
	}
	s.Runs = append(s.Runs, results.ProcessRun{
		Environment: c.env, Kind: c.env, Mode: c.mode, N: c.n, Process: 0, Warmup: true,
		Status: results.StatusOK, Samples: c.n, StartedAt: fixtureStart,
	})
	for t := 0; t < int(c.n); t++ {
		s.Samples = append(s.Samples, results.SpawnSample{
			Environment: c.env, Kind: c.env, Mode: c.mode, N: c.n, Process: 0, Thread: int32(t),
			SpawnNS: 1e12, Warmup: true, ClockTrusted: true,
		})
	}
}

// lognormalSpawns draws spawn times around median ns with a slow first
// few spawns, deterministically from seed.
func lognormalSpawns(median float64, seed uint64) func(p, t int) int64 {
	return func(p, t int) int64 {
		rng := rand.New(rand.NewPCG(seed, uint64(p)<<32|uint64(t)))
		v := median * math.Exp(0.25*rng.NormFloat64())
		if t < 3 {
			v *= float64(6 - 2*t)
		}
		return int64(v)
	}
}

// realisticSet is a result set like a full sequential run: native fast,
// wasi-threads about ten times slower with a clock that failed coherence,
// emscripten a hundred times slower and out of memory at n = 1000, one
// timeout among its n = 10 processes, and one environment skipped.
func realisticSet(t testing.TB) *results.Set {
	t.Helper()
	s := &results.Set{Provenance: fixtureProvenance(
		`{"chromium":"chromium is not installed"}`,
		`{"native":"gcc 12.2.0","wasi-threads":"wasmtime 39.0.1","emscripten":"emcc 3.1.6"}`)}
	medians := map[string]float64{"native": 40e3, "wasi-threads": 400e3, "emscripten": 4e6}
	for i, env := range []string{"native", "wasi-threads", "emscripten"} {
		for _, n := range []int32{1, 10, 100, 1000} {
			c := cellSpec{env: env, mode: "sequential", n: n, processes: int(max(1, 100/n)),
				spawnNS: lognormalSpawns(medians[env], uint64(i)*10000+uint64(n)), untrusted: env == "wasi-threads"}
			if env == "emscripten" && n == 1000 {
				c.statuses = []string{results.StatusOOM}
			}
			if env == "emscripten" && n == 10 {
				// It printed its spawns before it timed out; they must
				// count nowhere.
				c.statuses, c.failedSpawns = []string{results.StatusTimeout}, true
			}
			addCell(s, c)
		}
	}
	for _, n := range []int32{10, 100} {
		addCell(s, cellSpec{env: "native", mode: "parallel", n: n, processes: int(max(1, 100/n)),
			spawnNS: lognormalSpawns(90e3, 777+uint64(n))})
	}
	s.Calibration = []results.CalibrationCheck{
		{Environment: "native", Kind: "native", Check: "sleep", RequestedNS: 1e6, MeasuredNS: 1.05e6, Pass: true},
		{Environment: "native", Kind: "native", Check: "coherence", RequestedNS: 100, Pass: true},
		{Environment: "wasi-threads", Kind: "wasi-threads", Check: "sleep", RequestedNS: 1e6, MeasuredNS: 1.1e6, Pass: true},
		{Environment: "wasi-threads", Kind: "wasi-threads", Check: "coherence", RequestedNS: 100, Violations: 7, Pass: false,
			Detail: "7 spawns with spawn_ns > joined_ns"},
	}
	return s
}
