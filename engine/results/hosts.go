package results

import "strings"

// addedWithHosts are the columns that sets written before environments
// were payload x host lack.
var addedWithHosts = map[string]bool{"payload": true, "host": true, "clock_step_ns": true}

// legacyFirefoxStepNS is the one allowance those sets' bracket rule had:
// one 20 µs step above joined_ns for the Firefox kinds.
const legacyFirefoxStepNS = 20_000

// browserCoarseStepNS are the steps the browser hosts declared before the
// double's step was counted: the coarsening alone. A page's reading is
// timeOrigin + now() as a double near 1.7e12 ms, whose own step (244 ns,
// 256 once scaled to ns) lands on top of the coarsening, so two readings
// of one instant can differ by a coarse step and a few hundred
// nanoseconds (emscripten-pool-firefox in the study: 2 spawns in 4000,
// each 20.224 µs after its join reading). Such rows get the declaration of
// today, coarse step + jsDoubleStepNS, and the set's trust is re-marked.
var browserCoarseStepNS = map[string]int64{"chromium": 5_000, "firefox": 20_000}

// jsDoubleStepNS is the step of timeOrigin + now() in nanoseconds as a
// double until 2043 (2^8 ns); engine/env declares the same.
const jsDoubleStepNS = 256

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
			*step += jsDoubleStepNS
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
