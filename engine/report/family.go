package report

import (
	"slices"
	"sync"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// Host families, in the order reports list them. A family groups the
// environments that share a host: readers compare within a family first
// (Wasmtime's lines against each other, browsers against each other) and
// across families second. Each host declares its family (engine/env
// HostFacts), and a payload that brings its own thread layer its own
// (PayloadFacts); nothing is guessed from names.
const (
	FamilyNative     = "native"
	FamilyWasmtime   = "Wasmtime"
	FamilyWAMR       = "WAMR"
	FamilyJSHosts    = "JS hosts"
	FamilyEmscripten = "Emscripten"
	FamilyRawWorkers = "raw workers"
	FamilyOther      = "other"
)

// Families lists the host families in report order; a family a new host
// declares that is not listed comes after them, before "other".
var Families = []string{FamilyNative, FamilyWasmtime, FamilyWAMR, FamilyJSHosts, FamilyEmscripten, FamilyRawWorkers, FamilyOther}

var (
	schemaOnce sync.Once
	schema     *spec.Schema
)

// FamilyOfKind is the family of a kind's (payload, host) pair, as the
// schema's short forms and the pair's declarations say; "other" for a
// kind the schema does not know.
func FamilyOfKind(kind string) string {
	schemaOnce.Do(func() { schema, _ = spec.LoadSchema() })
	if schema == nil {
		return FamilyOther
	}
	payload, host, ok := schema.PairOfKind(kind)
	if !ok {
		return FamilyOther
	}
	if f := env.Family(payload, host); f != "" {
		return f
	}
	return FamilyOther
}

// Family is the host family of env, from its kind; an environment with no
// recorded kind (one that was skipped) is judged by its name, which for
// the shipped specs is its kind.
func (r *Report) Family(env string) string {
	if k := r.kinds[env]; k != "" {
		return FamilyOfKind(k)
	}
	return FamilyOfKind(env)
}

// familyRank places a family in report order.
func familyRank(f string) int {
	if i := slices.Index(Families, f); i >= 0 && f != FamilyOther {
		return i
	}
	if f == FamilyOther {
		return len(Families) + 1
	}
	return len(Families)
}

// orderAsPlanned sorts the environments in the order their specs list
// them (the invocations' planned cells, oldest invocation first), the
// unplanned ones after, so a report reads in the spec's order whatever
// order an interleaved run measured in.
func (r *Report) orderAsPlanned(inputs []Input) {
	rank := map[string]int{}
	for _, in := range inputs {
		for _, inv := range in.Set.Provenance.Invocations {
			for _, c := range inv.Planned {
				if _, ok := rank[c.Environment]; !ok {
					rank[c.Environment] = len(rank)
				}
			}
		}
	}
	at := func(env string) int {
		if i, ok := rank[env]; ok {
			return i
		}
		return len(rank)
	}
	slices.SortStableFunc(r.Environments, func(a, b string) int { return at(a) - at(b) })
}

// orderByFamily sorts the environments by family, keeping the order of
// first appearance within a family.
func (r *Report) orderByFamily() {
	slices.SortStableFunc(r.Environments, func(a, b string) int {
		return familyRank(r.Family(a)) - familyRank(r.Family(b))
	})
}
