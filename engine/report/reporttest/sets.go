package reporttest

import (
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// RealisticSet is a result set like a full sequential run: native fast,
// wasi-threads about ten times slower with a clock that failed coherence,
// emscripten a hundred times slower and out of memory at n = 1000, one
// timeout among its n = 10 processes, and one environment skipped.
func RealisticSet(t testing.TB) *results.Set {
	t.Helper()
	s := &results.Set{Provenance: Provenance(
		`{"chromium":"chromium is not installed"}`,
		`{"native":"gcc 12.2.0","wasi-threads":"wasmtime 39.0.1","emscripten":"emcc 3.1.6"}`)}
	medians := map[string]float64{"native": 40e3, "wasi-threads": 400e3, "emscripten": 4e6}
	for i, env := range []string{"native", "wasi-threads", "emscripten"} {
		for _, n := range []int32{1, 10, 100, 1000} {
			c := Cell{Env: env, Mode: "sequential", N: n, Processes: int(max(1, 100/n)),
				SpawnNS: LognormalSpawns(medians[env], uint64(i)*10000+uint64(n)), Untrusted: env == "wasi-threads"}
			if env == "emscripten" && n == 1000 {
				c.Statuses = []string{results.StatusOOM}
			}
			if env == "emscripten" && n == 10 {
				// It printed its spawns before it timed out; they must
				// count nowhere.
				c.Statuses, c.FailedSpawns = []string{results.StatusTimeout}, true
			}
			AddCell(s, c)
		}
	}
	for _, n := range []int32{10, 100} {
		AddCell(s, Cell{Env: "native", Mode: "parallel", N: n, Processes: int(max(1, 100/n)),
			SpawnNS: LognormalSpawns(90e3, 777+uint64(n))})
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

// StatusSet has one cell of each kind the classic table distinguishes.
func StatusSet() *results.Set {
	s := &results.Set{Provenance: Provenance(`{"chromium":"no chromium binary"}`, "")}
	AddCell(s, Cell{Env: "native", Mode: "sequential", N: 1, Processes: 3,
		SpawnNS: US([][]float64{{10}, {20}, {30}})})
	AddCell(s, Cell{Env: "native", Mode: "sequential", N: 10, Processes: 2,
		SpawnNS: US([][]float64{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12, 13, 14, 15, 16, 17, 18, 19, 20}})})
	// Every process out of memory; then one of three timed out.
	AddCell(s, Cell{Env: "emscripten", Mode: "sequential", N: 1, Processes: 2,
		Statuses: []string{results.StatusOOM, results.StatusOOM}})
	AddCell(s, Cell{Env: "emscripten", Mode: "sequential", N: 10, Processes: 3, Statuses: []string{results.StatusTimeout},
		SpawnNS: func(p, t int) int64 { return int64(1000 * (100 + 100*p)) }})
	AddCell(s, Cell{Env: "wasi", Mode: "sequential", N: 1, Processes: 2, Untrusted: true,
		SpawnNS: US([][]float64{{100}, {300}})})
	return s
}

// MachineSet is a one-machine set: native and wasm cells whose every
// spawn takes the given µs, measured on host.
func MachineSet(t *testing.T, host string, nativeUS, wasmUS int64, specHash string) *results.Set {
	t.Helper()
	s := &results.Set{Provenance: Provenance("", "")}
	inv := &s.Provenance.Invocations[0]
	inv.Machine.Hostname = host
	inv.SpecHash = specHash
	for _, c := range []struct {
		env string
		us  int64
	}{{"native", nativeUS}, {"wasm", wasmUS}} {
		for _, n := range []int32{1, 10} {
			AddCell(s, Cell{Env: c.env, Mode: "sequential", N: n, Processes: 6, SpawnNS: func(p, th int) int64 { return c.us*1000 + int64(p) }})
		}
	}
	id := inv.Machine.Identity()
	for i := range s.Runs {
		s.Runs[i].Invocation, s.Runs[i].Machine = inv.ID, id
	}
	for i := range s.Samples {
		s.Samples[i].Invocation, s.Samples[i].Machine = inv.ID, id
	}
	return s
}

// MergedOnDisk merges sets through the results writer and reads the
// merged directory back, as `spawnbench merge` then `report` do.
func MergedOnDisk(t *testing.T, sets ...*results.Set) (string, *results.Set) {
	t.Helper()
	var parts []results.Part
	for i, s := range sets {
		parts = append(parts, results.Part{Dir: "m" + string(rune('a'+i)), Set: s})
	}
	merged, err := results.Merge(parts, results.Invocation{Machine: results.Machine{Hostname: "merger"}, StartedAt: Start, EndedAt: &Start}, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "merged")
	w, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Import(merged); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, back
}

// BenchfmtSet is a small set for benchstat to read: native and
// wasi-threads, measured on a named host.
func BenchfmtSet() *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	s.Provenance.Invocations[0].Machine.Hostname = "testhost"
	for i, env := range []string{"native", "wasi-threads"} {
		AddCell(s, Cell{Env: env, Mode: "sequential", N: 1, Processes: 12,
			SpawnNS: LognormalSpawns(40e3*float64(1+4*i), uint64(i)+1)})
		AddCell(s, Cell{Env: env, Mode: "sequential", N: 100, Processes: 7,
			Statuses: []string{results.StatusCrashed}, FailedSpawns: true,
			SpawnNS: LognormalSpawns(40e3*float64(1+4*i), uint64(i)+50)})
	}
	return s
}

// ReleaseSet is native and Wasmtime CLI environments in several releases,
// both modes, n = 1 and 10, ten processes a cell. toolchains is the
// provenance's record, as a run writes it (the payload's tools, then the
// CLI's --version line); each environment is as much slower than native
// as its place in envs.
func ReleaseSet(envs []string, toolchains string) *results.Set {
	s := &results.Set{Provenance: Provenance("", toolchains)}
	for i, env := range append([]string{"native"}, envs...) {
		for _, mode := range []string{"sequential", "parallel"} {
			for _, n := range []int32{1, 10} {
				AddCell(s, Cell{Env: env, Mode: mode, N: n, Processes: 10,
					SpawnNS: LognormalSpawns(30e3*float64(1+i), uint64(i)*100+uint64(n))})
			}
		}
	}
	kind := func(env string) string {
		if env == "native" {
			return "native"
		}
		return "wasmtime-cli"
	}
	for i := range s.Samples {
		s.Samples[i].Kind = kind(s.Samples[i].Environment)
	}
	for i := range s.Runs {
		s.Runs[i].Kind = kind(s.Runs[i].Environment)
	}
	return s
}

// CLIToolchain is a Wasmtime CLI environment's toolchain line.
func CLIToolchain(version string) string {
	return "Debian clang version 16.0.6 (15~deb12u1); Debian LLD 16.0.6; wasmtime " + version + " (823d1b8f2 2026-06-24)"
}

// OneCPUSet holds native and wasi-threads free and on one CPU (their
// twins, as the spec's placement block makes them), at n = 1 and 100.
// Free, wasi-threads is 2× native; on one CPU, 3×.
func OneCPUSet(t *testing.T) *results.Set {
	t.Helper()
	s := &results.Set{Provenance: Provenance("", "")}
	medians := map[string]float64{"native": 40e3, "wasi-threads": 80e3, "native@one-cpu": 20e3, "wasi-threads@one-cpu": 60e3}
	i := 0
	for env, m := range medians {
		for _, n := range []int32{1, 100} {
			i++
			AddCell(s, Cell{Env: env, Mode: "sequential", N: n, Processes: 20, SpawnNS: LognormalSpawns(m, uint64(i)*1000)})
		}
	}
	for k := range s.Runs {
		r := &s.Runs[k]
		r.Placement = "free"
		if of, ok := strings.CutSuffix(r.Environment, "@one-cpu"); ok {
			r.Placement, r.PlacementOf = "one-cpu", of
		}
		r.Kind, _ = strings.CutSuffix(r.Kind, "@one-cpu")
	}
	return s
}

// WideKinds are sixteen environments as a full run names them, one or
// more of every kind, with their kinds.
var WideKinds = [][2]string{
	{"native", "native"},
	{"wasi-threads", "wasi-threads"}, {"wasi-threads-pooled", "wasi-threads"},
	{"wasmtime-46", "wasmtime-cli"}, {"wasmtime-36", "wasmtime-cli"},
	{"wasi-threads-node", "wasi-threads-node"}, {"wasi-threads-chromium", "wasi-threads-chromium"},
	{"wasi-threads-firefox", "wasi-threads-firefox"},
	{"emscripten", "emscripten"}, {"emscripten-pool", "emscripten"}, {"emscripten-chromium", "emscripten-chromium"},
	{"emscripten-firefox", "emscripten-firefox"},
	{"manual", "manual"}, {"manual-node", "manual-node"}, {"manual-firefox", "manual-firefox"},
	{"custom", "command"},
}

// WideSet is a sixteen-environment set: sequential n = 1, 10 and 100,
// each environment a little slower than the one before it. The
// environments are listed out of family order on purpose.
func WideSet() *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	order := []int{12, 0, 8, 5, 1, 15, 2, 9, 3, 13, 4, 10, 6, 14, 7, 11}
	for _, i := range order {
		env := WideKinds[i][0]
		for _, n := range []int32{1, 10, 100} {
			AddCell(s, Cell{Env: env, Mode: "sequential", N: n, Processes: int(max(3, 30/n)),
				SpawnNS: LognormalSpawns(20e3*float64(1+i), uint64(i)*100+uint64(n))})
		}
	}
	for i := range s.Samples {
		s.Samples[i].Kind = KindOf(s.Samples[i].Environment)
	}
	for i := range s.Runs {
		s.Runs[i].Kind = KindOf(s.Runs[i].Environment)
	}
	return s
}

// KindOf is a WideKinds environment's kind.
func KindOf(env string) string {
	for _, ek := range WideKinds {
		if ek[0] == env {
			return ek[1]
		}
	}
	return ""
}

// ScaledSet is one environment's sequential n=100 cell with spawn times
// factor times a fixed lognormal draw.
func ScaledSet(env string, factor float64, toolchain string) *results.Set {
	s := &results.Set{Provenance: Provenance("", `{"`+env+`":"`+toolchain+`"}`)}
	draw := LognormalSpawns(50e3, 3)
	AddCell(s, Cell{Env: env, Mode: "sequential", N: 100, Processes: 10,
		SpawnNS: func(p, t int) int64 { return int64(factor * float64(draw(p, t))) }})
	return s
}

// ScaledSetPair is native times nativeFactor and wasm times wasmFactor.
func ScaledSetPair(nativeFactor, wasmFactor float64) *results.Set {
	s := ScaledSet("native", nativeFactor, "gcc 12")
	AddCell(s, Cell{Env: "wasm", Mode: "sequential", N: 100, Processes: 10,
		SpawnNS: func(p, t int) int64 { return int64(wasmFactor * 3 * float64(LognormalSpawns(50e3, 5)(p, t))) }})
	return s
}

// ScaledWithWasm is ScaledSet of native with a wasm cell of n = 100,
// factor × 3 times native's.
func ScaledWithWasm(factor float64) *results.Set {
	s := ScaledSet("native", 1, "gcc 12")
	draw := LognormalSpawns(50e3, 5)
	AddCell(s, Cell{Env: "wasm", Mode: "sequential", N: 100, Processes: 10,
		SpawnNS: func(p, t int) int64 { return int64(factor * 3 * float64(draw(p, t))) }})
	return s
}

// AgainstSet is native, free and libc at n = 10 and 100, 10 processes
// each, its spec setting libc against free; libc is twice free.
func AgainstSet() *results.Set {
	set := &results.Set{Provenance: Provenance("", "")}
	set.Provenance.Invocations[0].Resolved = []byte(`{"environments": [{"name": "native"}, {"name": "libc", "against": "free"}, {"name": "free"}]}`)
	for i, env := range []string{"native", "free", "libc"} {
		median := map[string]float64{"native": 20e3, "free": 40e3, "libc": 80e3}[env]
		for _, n := range []int32{10, 100} {
			AddCell(set, Cell{Env: env, Mode: "sequential", N: n, Processes: 10, SpawnNS: LognormalSpawns(median, uint64(i*100)+uint64(n))})
		}
	}
	return set
}

// AnswerSet has, at n = 1 and 100, a host of OS threads (wasm, family
// Wasmtime: 2× native at the first spawn, 3× in steady state), two more
// (cli, Wasmtime: 6× and 5×; vm, WAMR: 5× and 10×), a worker per spawn
// (workers, JS hosts: 400×, 500×), reused workers (reuse, Emscripten:
// 200×, 4×) and a worker host of 3 processes (few: not judged).
func AnswerSet() *results.Set { return ScaledAnswerSet(1) }

// ScaledAnswerSet is AnswerSet with cli's spawns cliScale times longer:
// at 13/6 its first spawn is 13× native's, among the workers' were the
// answer parted hosts at 10×.
func ScaledAnswerSet(cliScale float64) *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	medians := map[string][2]float64{ // first spawn, steady state: ns
		"native":  {50e3, 10e3},
		"wasm":    {100e3, 30e3}, // 2×, 3×
		"cli":     {300e3 * cliScale, 50e3 * cliScale},
		"vm":      {250e3, 100e3},
		"workers": {20e6, 5e6},  // 400×, 500×
		"reuse":   {10e6, 40e3}, // 200×, 4×
		"few":     {30e6, 10e6}, // 3 processes: not judged
	}
	families := map[string]string{"native": hostfacts.Native, "wasm": hostfacts.Wasmtime, "cli": hostfacts.Wasmtime, "vm": hostfacts.WAMR,
		"workers": hostfacts.JSHosts, "reuse": hostfacts.Emscripten, "few": hostfacts.RawWorkers}
	i := 0
	for _, env := range []string{"native", "wasm", "cli", "vm", "workers", "reuse", "few"} {
		m := medians[env]
		processes := 20
		if env == "few" {
			processes = 3
		}
		for k, n := range []int32{1, 100} {
			i++
			AddCell(s, Cell{Env: env, Mode: "sequential", N: n, Processes: processes, SpawnNS: LognormalSpawns(m[k], uint64(i)*1000)})
		}
	}
	for j := range s.Runs {
		s.Runs[j].Family = families[s.Runs[j].Environment]
		s.Runs[j].Host = s.Runs[j].Environment
	}
	return s
}

// ApartAnswerSet has, at n = 1 and 100, a host of OS threads (wasm,
// family Wasmtime: 2×, 3×), one whose threads are the component model's
// cooperative ones (coop, family hostfacts.CooperativeThreads: 0.4×,
// 0.1×, near were it an OS thread) and one whose threads are goroutines
// (goro, family wazero: 1.5×, 2×).
func ApartAnswerSet() *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	medians := map[string][2]float64{ // first spawn, steady state: ns
		"native": {50e3, 10e3},
		"wasm":   {100e3, 30e3},
		"goro":   {75e3, 20e3},
		"coop":   {20e3, 1e3},
	}
	i := 0
	for env, m := range medians {
		for k, n := range []int32{1, 100} {
			i++
			AddCell(s, Cell{Env: env, Mode: "sequential", N: n, Processes: 20, SpawnNS: LognormalSpawns(m[k], uint64(i)*1000)})
		}
	}
	for j := range s.Runs {
		switch s.Runs[j].Environment {
		case "coop":
			s.Runs[j].Family = hostfacts.CooperativeThreads
		case "wasm":
			s.Runs[j].Family = hostfacts.Wasmtime
		case "goro":
			s.Runs[j].Family = hostfacts.Wazero
		}
	}
	return s
}

// CrashedSet is one cell, native sequential n = 2, whose first failed
// processes ended with status after printing their spawns: with one
// failed, process 0 printed 1000 µs spawns and processes 1 and 2 spawn
// in 10 and 20 µs; with two, they printed 1 and 2 µs and no process
// ended ok. The failed processes' spawns stay in the set but count
// nowhere.
func CrashedSet(status string, failed int) *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	statuses := make([]string, failed)
	for i := range statuses {
		statuses[i] = status
	}
	spawns := [][]float64{{1000, 1000}, {10, 10}, {20, 20}}
	if failed > 1 {
		spawns = [][]float64{{1, 1}, {2, 2}}
	}
	AddCell(s, Cell{Env: "native", Mode: "sequential", N: 2, Processes: len(spawns), FailedSpawns: true, Statuses: statuses, SpawnNS: US(spawns)})
	return s
}

// TwoMachines is the report of MachineSet on host-a (wasm 3× native)
// and on host-b (5×), merged on disk, and the two machines' IDs.
func TwoMachines(t *testing.T) (*report.Report, string, string) {
	t.Helper()
	a := MachineSet(t, "host-a", 10, 30, "hash")
	b := MachineSet(t, "host-b", 20, 100, "hash")
	idA, idB := a.Provenance.Invocations[0].Machine.Identity(), b.Provenance.Invocations[0].Machine.Identity()
	if idA == idB || len(idA) != 12 {
		t.Fatalf("machine ids %q and %q", idA, idB)
	}
	dir, set := MergedOnDisk(t, a, b)
	r, err := report.Build([]report.Input{{Dir: dir, Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, idA, idB
}

// FiveReleasesSet is ReleaseSet of five Wasmtime CLI releases, listed
// out of order, one of them under the name wasmtime-latest.
func FiveReleasesSet() *results.Set {
	envs := []string{"wasmtime-46", "wasmtime-42", "wasmtime-latest", "wasmtime-9", "wasmtime-36"}
	tcs := `{"native":"gcc (Debian 12.2.0-14+deb12u1) 12.2.0",` +
		`"wasmtime-46":"` + CLIToolchain("46.0.1") + `","wasmtime-42":"` + CLIToolchain("42.0.1") + `",` +
		`"wasmtime-latest":"` + CLIToolchain("45.0.2") + `","wasmtime-9":"` + CLIToolchain("9.0.4") + `",` +
		`"wasmtime-36":"` + CLIToolchain("36.0.9") + `"}`
	return ReleaseSet(envs, tcs)
}

// SetsOfFewerThanTwoReleases are sets whose Wasmtime CLI environments
// make no two releases: one release, one release under two names, and
// two environments of which one recorded no version.
func SetsOfFewerThanTwoReleases() map[string]*results.Set {
	out := map[string]*results.Set{}
	for name, c := range map[string]struct {
		envs []string
		tcs  string
	}{
		"one release": {[]string{"wasmtime-46"}, `{"wasmtime-46":"` + CLIToolchain("46.0.1") + `"}`},
		"one release twice": {[]string{"wasmtime-46", "wasmtime-46-again"},
			`{"wasmtime-46":"` + CLIToolchain("46.0.1") + `","wasmtime-46-again":"` + CLIToolchain("46.0.1") + `"}`},
		"no recorded version": {[]string{"wasmtime-46", "wasmtime-36"}, `{"wasmtime-46":"` + CLIToolchain("46.0.1") + `"}`},
	} {
		out[name] = ReleaseSet(c.envs, c.tcs)
	}
	return out
}
