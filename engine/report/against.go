package report

import (
	"encoding/json"

	"spawnbench/engine/results"
)

// An environment may be set against another of its spec (`against` in
// CUE): one payload against another on the same host, one release
// against the next. The report divides its figures by the other's, cell
// by cell, with the same Yuen–Welch interval over both cells' processes
// as the ratios to the baseline, so what the pairing isolates (the
// payload, the release) is read off one table instead of two columns of
// ratios to native.

// againstOf is each environment's `against`, from the resolved specs of
// the set's invocations (the last one that names it wins).
func againstOf(p *results.Provenance) map[string]string {
	out := map[string]string{}
	for _, inv := range p.Invocations {
		if len(inv.Resolved) == 0 {
			continue
		}
		var spec struct {
			Environments []struct {
				Name    string `json:"name"`
				Against string `json:"against"`
			} `json:"environments"`
		}
		if json.Unmarshal(inv.Resolved, &spec) != nil {
			continue
		}
		for _, e := range spec.Environments {
			if e.Against != "" {
				out[e.Name] = e.Against
			}
		}
	}
	return out
}

// againstRatios divides every cell of an environment that is set against
// another by that one's cell, in spec order.
func againstRatios(r *Report, against map[string]string) []Ratio {
	var out []Ratio
	for _, env := range r.Environments {
		if other := against[env]; other != "" {
			out = append(out, r.cellRatios(env, other)...)
		}
	}
	return out
}
