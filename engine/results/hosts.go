package results

import (
	"strings"

	"spawnbench/engine/hostfacts"
)

// addedWithHosts are the columns that sets written before environments
// were payload x host lack.
var addedWithHosts = map[string]bool{"payload": true, "host": true, "clock_step_ns": true}

// legacyFirefoxStepNS is the one allowance those sets' bracket rule had:
// one 20 µs step above joined_ns for the Firefox kinds.
const legacyFirefoxStepNS = hostfacts.FirefoxCoarseStepNS

// browserCoarseStepNS are the steps the browser hosts declared before the
// double's step was counted: the coarsening alone. A page's reading is
// timeOrigin + now() as a double near 1.7e12 ms, whose own step (244 ns,
// 256 once scaled to ns) lands on top of the coarsening, so two readings
// of one instant can differ by a coarse step and a few hundred
// nanoseconds (emscripten-pool-firefox in the study: 2 spawns in 4000,
// each 20.224 µs after its join reading). Such rows get the declaration of
// today, coarse step + jsDoubleStepNS, and the set's trust is re-marked.
var browserCoarseStepNS = map[string]int64{"chromium": hostfacts.ChromiumCoarseStepNS, "firefox": hostfacts.FirefoxCoarseStepNS}

// fillClockSteps gives the rows of a set written before hosts declared
// their clock step (no host recorded) the allowance the rule of that time
// gave them, so re-marking such a set (a merge, a resume) keeps its
// verdicts. Rows that name their host carry the host's declared step, a
// browser's corrected as browserCoarseStepNS says; it reports whether it
// corrected one.
func fillClockSteps(s *Set) (corrected bool) {
	fill := func(host, kind string, step *int64) {
		switch {
		case host == "" && *step == 0 && strings.HasSuffix(kind, "-firefox"):
			*step = legacyFirefoxStepNS
		case host != "" && *step == browserCoarseStepNS[host]:
			*step += hostfacts.JSDoubleStepNS
			corrected = true
		}
	}
	for i := range s.Samples {
		fill(s.Samples[i].Host, s.Samples[i].Kind, &s.Samples[i].ClockStepNS)
	}
	for i := range s.Runs {
		fill(s.Runs[i].Host, s.Runs[i].Kind, &s.Runs[i].ClockStepNS)
	}
	for i := range s.Calibration {
		fill(s.Calibration[i].Host, s.Calibration[i].Kind, &s.Calibration[i].ClockStepNS)
	}
	return corrected
}

// legacyPairs are the (payload, host) pairs and families of the kinds
// that existed before rows recorded them, for filling sets written then
// (a kind a newer spawnbench added always records its own).
var legacyPairs = map[string]struct{ payload, host, family string }{
	"native":                 {"native", "os", hostfacts.Native},
	"wasi-threads":           {"wasi-freestanding", "wasmtime", hostfacts.Wasmtime},
	"wasmtime-cli":           {"wasi-freestanding", "wasmtime-cli", hostfacts.Wasmtime},
	"wamr":                   {"wasi-freestanding", "wamr", hostfacts.WAMR},
	"wasi-libc":              {"wasi-libc", "wasmtime", hostfacts.Wasmtime},
	"wasi-libc-wasmtime-cli": {"wasi-libc", "wasmtime-cli", hostfacts.Wasmtime},
	"wasi-libc-wamr":         {"wasi-libc", "wamr", hostfacts.WAMR},
	"wasi-threads-node":      {"wasi-freestanding", "node", hostfacts.JSHosts},
	"wasi-threads-chromium":  {"wasi-freestanding", "chromium", hostfacts.JSHosts},
	"wasi-threads-firefox":   {"wasi-freestanding", "firefox", hostfacts.JSHosts},
	"wasi-threads-bun":       {"wasi-freestanding", "bun", hostfacts.JSHosts},
	"wasi-threads-deno":      {"wasi-freestanding", "deno", hostfacts.JSHosts},
	"emscripten":             {"emscripten", "node", hostfacts.Emscripten},
	"emscripten-chromium":    {"emscripten", "chromium", hostfacts.Emscripten},
	"emscripten-firefox":     {"emscripten", "firefox", hostfacts.Emscripten},
	"manual":                 {"manual", "chromium", hostfacts.RawWorkers},
	"manual-node":            {"manual", "node", hostfacts.RawWorkers},
	"manual-firefox":         {"manual", "firefox", hostfacts.RawWorkers},
	"manual-bun":             {"manual", "bun", hostfacts.RawWorkers},
	"manual-deno":            {"manual", "deno", hostfacts.RawWorkers},
	"command":                {"command", "command", hostfacts.Other},
}

// FamilyOfKind is the family of a kind that existed before rows recorded
// their family, Other for any other.
func FamilyOfKind(kind string) string {
	if p, ok := legacyPairs[kind]; ok {
		return p.family
	}
	return hostfacts.Other
}

// PairOfKind is the payload and host of a kind that existed before rows
// recorded them; false for any other.
func PairOfKind(kind string) (payload, host string, ok bool) {
	p, ok := legacyPairs[kind]
	return p.payload, p.host, ok
}

// fillFamilies gives rows written before the family column their kind's
// family. Their payload and host stay as written (empty in sets older
// than those columns, which is how the clock-step rule knows them).
func fillFamilies(s *Set) {
	for i := range s.Runs {
		if r := &s.Runs[i]; r.Family == "" {
			r.Family = FamilyOfKind(r.Kind)
		}
	}
}
