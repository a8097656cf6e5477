package results

// MarkClockTrust sets each sample's ClockTrusted: false when it breaks
// 0 <= spawn_ns <= joined_ns or its environment failed a calibration check
// in the same set.
//
// A check speaks for the machine it ran on: in a set merged from several
// machines, one machine's failed clock does not mark another's samples.
// A check whose machine is unknown speaks for every machine.
func MarkClockTrust(set *Set) {
	type key struct{ machine, env string }
	failed := map[key]bool{}
	for _, c := range set.Calibration {
		if !c.Pass {
			m := ""
			if inv := set.Provenance.Find(c.Invocation); inv != nil {
				m = inv.Machine.Identity()
			}
			failed[key{m, c.Environment}] = true
		}
	}
	for i := range set.Samples {
		s := &set.Samples[i]
		bad := failed[key{"", s.Environment}] || failed[key{s.Machine, s.Environment}]
		if s.Machine == "" {
			// A sample of unknown machine: any machine's failure counts.
			for k := range failed {
				bad = bad || k.env == s.Environment
			}
		}
		s.ClockTrusted = coherent(*s) && !bad
	}
}

// coherent is the bracket 0 <= spawn_ns <= joined_ns, each bound
// allowed one step of the host's clock.
func coherent(s SpawnSample) bool {
	return s.SpawnNS >= -s.ClockStepNS && (s.JoinedNS == nil || s.SpawnNS <= *s.JoinedNS+s.ClockStepNS)
}
