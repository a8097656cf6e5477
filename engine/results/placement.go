package results

import "spawnbench/engine/protocol"

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

// cpusOf is the journal's CPU pairs of spawns, nil when no spawn has
// either CPU (most environments), so their records stay as they were.
func cpusOf(spawns []protocol.Line) [][2]*int32 {
	known := false
	for _, s := range spawns {
		known = known || s.ParentCPU != nil || s.ChildCPU != nil
	}
	if !known {
		return nil
	}
	out := make([][2]*int32, len(spawns))
	for i, s := range spawns {
		out[i] = [2]*int32{s.ParentCPU, s.ChildCPU}
	}
	return out
}
