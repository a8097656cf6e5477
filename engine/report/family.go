package report

import (
	"slices"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
)

// A family groups the environments that share a host: readers compare
// within a family first (Wasmtime's lines against each other, browsers
// against each other) and across families second. Each process row
// records the family its environment ran in (hostfacts names them); the
// report reads it from there, and nothing is guessed from names.

// Family is the host family of env: what its process rows recorded, else
// what its planned cells did (an environment that was skipped), else, for
// a set older than both, its kind's (results.FamilyOfKind).
func (r *Report) Family(env string) string {
	if f := r.families[env]; f != "" {
		return f
	}
	if k := r.kinds[env]; k != "" {
		return results.FamilyOfKind(k)
	}
	return results.FamilyOfKind(env)
}

// FamilyThreads is what family's threads are where they are not OS
// threads of their own (hostfacts.Goroutines for wazero), "" where they
// are: the report says so beside the family's rows, since a spawn there
// starts no OS thread and its ratio to native compares unlike things.
func FamilyThreads(family string) string { return hostfacts.Threads(family) }

// familyRank places a family in report order.
func familyRank(f string) int {
	if i := slices.Index(hostfacts.Families, f); i >= 0 && f != hostfacts.Other {
		return i
	}
	if f == hostfacts.Other {
		return len(hostfacts.Families) + 1
	}
	return len(hostfacts.Families)
}

// orderByFamily sorts the environments by family, keeping the order of
// first appearance within a family.
func (r *Report) orderByFamily() {
	slices.SortStableFunc(r.Environments, func(a, b string) int {
		return familyRank(r.Family(a)) - familyRank(r.Family(b))
	})
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
