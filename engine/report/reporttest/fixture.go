// Package reporttest builds result sets for the report's tests: a
// provenance as a runner records it, cells of processes with given spawn
// times, statuses and loads, and the sets that the model's tests
// (engine/report) and the renderers' (engine/report/render) share. It is
// test support: only _test files import it.
package reporttest

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// Start is when every fixture run started.
var Start = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// Provenance is what a runner records: one run invocation, with
// the skipped environments and toolchains given as JSON objects ("" for
// none).
func Provenance(skipped, toolchains string) results.Provenance {
	ended := Start.Add(20 * time.Minute)
	inv := results.Invocation{
		ID: 1, Command: "run", Args: []string{"run", "specs/sequential.cue"},
		SpecPath: "specs/sequential.cue", SpecName: "sequential", SpecHash: "0123456789abcdef0123456789abcdef",
		Views: results.Views{Last: 10, MinN: 100}, Version: "test", Order: "interleave", Seed: 1,
		Machine:   results.Machine{CPUModel: "Test CPU", Cores: 2, Kernel: "6.1.0-test", Arch: "amd64", GoVersion: "go1.26.8"},
		StartedAt: Start, EndedAt: &ended,
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

// Cell describes the processes of one fixture cell.
type Cell struct {
	Env, Mode string
	N         int32
	Processes int
	// Statuses overrides the status of the first processes; a process
	// whose status is not ok prints no samples.
	Statuses []string
	// SpawnNS gives the spawn time of (process, thread).
	SpawnNS func(process, thread int) int64
	// Untrusted flags samples as clock_trusted = false.
	Untrusted bool
	// FailedSpawns makes failed processes print their spawns too, as a
	// process that crashes after its last line does.
	FailedSpawns bool
	// Others and Steal give a process's others_cpu_ns and steal_ns as a
	// share of its wall time; nil records neither.
	Others, Steal func(process int) float64
	// WallNS is every process's wall time (default 1 ms).
	WallNS int64
	// StartEvery spaces the processes' start times (default: all at
	// once, which leaves a cell no drift test).
	StartEvery time.Duration
}

// AddCell appends one cell's runs and samples to s, plus a warm-up process
// with absurd times that must never reach any statistic.
func AddCell(s *results.Set, c Cell) {
	for p := 0; p < c.Processes; p++ {
		status := results.StatusOK
		if p < len(c.Statuses) {
			status = c.Statuses[p]
		}
		run := results.ProcessRun{
			Environment: c.Env, Kind: c.Env, Mode: c.Mode, N: c.N, Process: int32(p),
			Status: status, WallNS: 1e6, StartedAt: Start.Add(time.Duration(p) * c.StartEvery),
		}
		if c.WallNS > 0 {
			run.WallNS = c.WallNS
		}
		if c.Others != nil {
			v := int64(c.Others(p) * float64(run.WallNS))
			run.OthersCPUNS = &v
		}
		if c.Steal != nil {
			v := int64(c.Steal(p) * float64(run.WallNS))
			run.StealNS = &v
		}
		if status == results.StatusOK || c.FailedSpawns {
			spawns := make([]int64, c.N)
			for t := range spawns {
				spawns[t] = c.SpawnNS(p, t)
			}
			// As the journal stores it: what the report and the busy rule
			// read.
			run.Summarize(spawns)
			for t := 0; t < int(c.N); t++ {
				v := spawns[t]
				joined := v + 1000
				s.Samples = append(s.Samples, results.SpawnSample{
					Environment: c.Env, Kind: c.Env, Mode: c.Mode, N: c.N, Process: int32(p), Thread: int32(t),
					SpawnNS: v, JoinedNS: &joined, ClockTrusted: !c.Untrusted,
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
		Environment: c.Env, Kind: c.Env, Mode: c.Mode, N: c.N, Process: 0, Warmup: true,
		Status: results.StatusOK, Samples: c.N, StartedAt: Start,
	})
	for t := 0; t < int(c.N); t++ {
		s.Samples = append(s.Samples, results.SpawnSample{
			Environment: c.Env, Kind: c.Env, Mode: c.Mode, N: c.N, Process: 0, Thread: int32(t),
			SpawnNS: 1e12, Warmup: true, ClockTrusted: true,
		})
	}
}

// LognormalSpawns draws spawn times around median ns with a slow first
// few spawns, deterministically from seed.
func LognormalSpawns(median float64, seed uint64) func(p, t int) int64 {
	return func(p, t int) int64 {
		rng := rand.New(rand.NewPCG(seed, uint64(p)<<32|uint64(t)))
		v := median * math.Exp(0.25*rng.NormFloat64())
		if t < 3 {
			v *= float64(6 - 2*t)
		}
		return int64(v)
	}
}

// Build is Build of one set, failing the test on error.
func Build(t *testing.T, s *results.Set) *report.Report {
	t.Helper()
	r, err := report.Build([]report.Input{{Dir: "testdir", Set: s}}, report.Options{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

// US returns a spawn-time function giving values[process][thread] µs.
func US(values [][]float64) func(p, t int) int64 {
	return func(p, t int) int64 { return int64(values[p][t] * 1e3) }
}

// Near is true when got equals want to nine significant digits.
func Near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// NearStored is Near for figures over processes reduced as a set stores
// them, to the ns (typical_spawn_ns): tens of µs rounded to the ns are
// within a few parts in 10⁵ of the exact ratio.
func NearStored(got, want float64) bool { return math.Abs(got-want) <= 1e-4*math.Abs(want) }

// Share returns a constant share of wall time for every process.
func Share(v float64) func(int) float64 { return func(int) float64 { return v } }

// Half is a load of loaded for the even processes and idle for the odd
// ones, and SlowedHalf spawn times around 40 µs with the even processes
// 1.5× slower: a load that moved the figures of the processes it loaded.
func Half(loaded, idle float64) func(int) float64 {
	return func(p int) float64 {
		if p%2 == 0 {
			return loaded
		}
		return idle
	}
}

// SlowedHalf: see Half.
func SlowedHalf(p, t int) int64 {
	v := LognormalSpawns(40e3, 1)(p, t)
	if p%2 == 0 {
		v = v * 3 / 2
	}
	return v
}

// LoadedSet is one cell, native sequential n = 10, of processes of
// 200 ms wall time that saw the given load (Cell.Others, Cell.Steal);
// spawnNS nil draws spawns around 40 µs.
func LoadedSet(processes int, spawnNS func(p, t int) int64, others, steal func(int) float64) *results.Set {
	if spawnNS == nil {
		spawnNS = LognormalSpawns(40e3, 1)
	}
	s := &results.Set{Provenance: Provenance("", "")}
	AddCell(s, Cell{Env: "native", Mode: "sequential", N: 10, Processes: processes, WallNS: 200e6, SpawnNS: spawnNS, Others: others, Steal: steal})
	return s
}

// OthersSet is one cell, native sequential n = 100, of 6 processes of
// 200 ms wall time during which others' work took the given share.
func OthersSet(others float64) *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	AddCell(s, Cell{Env: "native", Mode: "sequential", N: 100, Processes: 6, WallNS: 200e6,
		SpawnNS: LognormalSpawns(50e3, 3), Others: Share(others)})
	return s
}
