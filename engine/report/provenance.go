package report

import (
	"encoding/json"
	"fmt"

	"spawnbench/engine/results"
)

// views is the last-K view the set's measuring invocations recorded. The
// spec schema fills the default, so a measuring invocation without one
// is a damaged provenance; a set only calibrated has no view (and no
// spawn cells to apply one to).
func views(p *results.Provenance) (last int, minN int32, err error) {
	set := false
	for _, inv := range p.Invocations {
		if inv.Command == "calibrate" || inv.Command == "merge" {
			continue
		}
		v := inv.Views
		if v.Last < 0 || v.MinN < 0 {
			return 0, 0, fmt.Errorf("provenance of invocation %d has views last %d, min_n %d; both must be positive", inv.ID, v.Last, v.MinN)
		}
		if set && (v.Last != last || int32(v.MinN) != minN) {
			return 0, 0, fmt.Errorf("its invocations disagree on views (last %d for n >= %d, then last %d for n >= %d)", last, minN, v.Last, v.MinN)
		}
		last, minN, set = v.Last, int32(v.MinN), true
	}
	if !set {
		// Sets written before typed provenance called every invocation
		// that made them calibrate; their views are still theirs.
		for _, inv := range p.Invocations {
			if inv.Views.Last > 0 {
				last, minN = inv.Views.Last, int32(inv.Views.MinN)
			}
		}
	}
	return last, minN, nil
}

// skippedEnvironments are the environments some invocation skipped, with
// the latest reason.
func skippedEnvironments(p *results.Provenance) map[string]string {
	out := map[string]string{}
	for _, inv := range p.Invocations {
		for env, why := range inv.Skipped {
			out[env] = why
		}
	}
	return out
}

// toolchains are the toolchain versions of the set's latest invocation
// that recorded each environment.
func toolchains(p *results.Provenance) map[string]string {
	out := map[string]string{}
	for _, inv := range p.Invocations {
		for env, v := range inv.Toolchains {
			out[env] = v
		}
	}
	return out
}

// precisionTarget is the target precision of the set's measuring runs
// (samples.precision of their resolved spec; the strictest when they
// differ), or 0 for sets whose spec predates it: the schema owns the
// default, and the report repeats none.
func precisionTarget(p *results.Provenance) float64 {
	target := 0.0
	for _, inv := range p.Invocations {
		if len(inv.Resolved) == 0 {
			continue
		}
		var spec struct {
			Samples struct {
				Precision float64 `json:"precision"`
			} `json:"samples"`
		}
		if json.Unmarshal(inv.Resolved, &spec) == nil && spec.Samples.Precision > 0 && (target == 0 || spec.Samples.Precision < target) {
			target = spec.Samples.Precision
		}
	}
	return target
}
