package results

// Placement says where a spawn's child first ran relative to its parent:
// on the CPU the parent was on when its create call returned, on another
// one, or unknown (the environment cannot tell, or the set predates the
// columns). Shares of the first two tell which regime a figure is in.
type Placement string

const (
	SameCPU          Placement = "same-cpu"
	OtherCPU         Placement = "other-cpu"
	UnknownPlacement Placement = "unknown"
)

// Placement is s's placement.
func (s SpawnSample) Placement() Placement {
	switch {
	case s.ParentCPU == nil || s.ChildCPU == nil:
		return UnknownPlacement
	case *s.ParentCPU == *s.ChildCPU:
		return SameCPU
	}
	return OtherCPU
}

// cpusOf is the journal's CPU pairs of samples, nil when no sample has
// either CPU (most environments), so their records stay as they were.
func cpusOf(samples []SpawnSample) [][2]*int32 {
	known := false
	for _, s := range samples {
		known = known || s.ParentCPU != nil || s.ChildCPU != nil
	}
	if !known {
		return nil
	}
	out := make([][2]*int32, len(samples))
	for i, s := range samples {
		out[i] = [2]*int32{s.ParentCPU, s.ChildCPU}
	}
	return out
}

// withCPUs gives journalled samples their CPU pairs back.
func withCPUs(samples []SpawnSample, cpus [][2]*int32) []SpawnSample {
	for i := range samples {
		if i < len(cpus) {
			samples[i].ParentCPU, samples[i].ChildCPU = cpus[i][0], cpus[i][1]
		}
	}
	return samples
}
