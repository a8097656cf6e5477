package results

import "strings"

// addedWithHosts are the columns that sets written before environments
// were payload x host lack.
var addedWithHosts = map[string]bool{"payload": true, "host": true, "clock_step_ns": true}

// legacyFirefoxStepNS is the one allowance those sets' bracket rule had:
// one 20 µs step above joined_ns for the Firefox kinds.
const legacyFirefoxStepNS = 20_000

// fillClockSteps gives the rows of a set written before hosts declared
// their clock step (no host recorded) the allowance the rule of that time
// gave them, so re-marking such a set (a merge, a resume) keeps its
// verdicts. Rows that name their host carry the host's declared step.
func fillClockSteps(s *Set) {
	for i := range s.Samples {
		if smp := &s.Samples[i]; smp.Host == "" && smp.ClockStepNS == 0 && strings.HasSuffix(smp.Kind, "-firefox") {
			smp.ClockStepNS = legacyFirefoxStepNS
		}
	}
	for i := range s.Runs {
		if r := &s.Runs[i]; r.Host == "" && r.ClockStepNS == 0 && strings.HasSuffix(r.Kind, "-firefox") {
			r.ClockStepNS = legacyFirefoxStepNS
		}
	}
	for i := range s.Calibration {
		if c := &s.Calibration[i]; c.Host == "" && c.ClockStepNS == 0 && strings.HasSuffix(c.Kind, "-firefox") {
			c.ClockStepNS = legacyFirefoxStepNS
		}
	}
}
