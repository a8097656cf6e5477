package results

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"spawnbench/engine/inputerr"
)

// Part is one result set to merge and the directory it was read from.
type Part struct {
	Dir string
	Set *Set
}

// MergeOptions say how Merge treats sets that measured the same cells.
type MergeOptions struct {
	// Occasions keeps runs of one spec that measured the same (machine,
	// environment, mode, n) cells as occasions of those cells: each
	// part's processes of a shared cell are numbered on after the parts
	// before it, and its occasions numbered apart from theirs. Without
	// it, a cell held by two parts is refused.
	Occasions bool
}

// Merge combines result sets made from one spec (shards of one machine,
// the whole spec on several machines, or with opts.Occasions runs of the
// same cells on several occasions) into one set. It refuses sets from
// different specs, the same set twice, and (without opts.Occasions) sets
// that both hold a (machine, environment, mode, n) cell, naming them.
// Every invocation is kept, renumbered in order of the parts (its Origin
// says where it came from and its ID there), and every row carries its
// invocation's new ID. inv, the merge itself, is recorded last.
func Merge(parts []Part, inv Invocation, opts MergeOptions) (*Set, error) {
	if len(parts) < 2 {
		return nil, inputerr.New("merge needs at least two result directories, got %d", len(parts))
	}
	seen := map[string]string{}
	for _, p := range parts {
		if prev, ok := seen[p.Set.ID]; ok && p.Set.ID != "" {
			return nil, inputerr.New("%s and %s are the same result set (set ID %s): merge each set once", prev, p.Dir, p.Set.ID)
		}
		seen[p.Set.ID] = p.Dir
	}
	hash, hashDir := "", ""
	for _, p := range parts {
		for _, in := range p.Set.Provenance.Invocations {
			if in.Command == "merge" || in.SpecHash == "" {
				continue
			}
			if hash == "" {
				hash, hashDir = in.SpecHash, p.Dir
				if inv.SpecPath == "" {
					inv.SpecPath, inv.SpecName = in.SpecPath, in.SpecName
				}
				continue
			}
			if in.SpecHash != hash {
				return nil, inputerr.New("%s was made by spec %s (sha256 %.12s) but %s by spec %s (sha256 %.12s): merge combines sets of one spec only; report them side by side with `spawnbench compare` instead",
					hashDir, specOf(parts, hashDir), hash, p.Dir, in.SpecPath, in.SpecHash)
			}
		}
	}
	if !opts.Occasions {
		if err := checkDisjoint(parts); err != nil {
			return nil, err
		}
	}
	out := &Set{Provenance: Provenance{Format: FormatVersion}}
	shift := occasionShifts{}
	for _, p := range parts {
		renumber := shift.of(p.Set)
		ids := map[int32]int32{}
		for _, in := range p.Set.Provenance.Invocations {
			id := out.Provenance.NextID()
			ids[in.ID] = id
			if in.Origin == nil {
				in.Origin = &Origin{Dir: p.Dir, ID: in.ID, Set: p.Set.ID}
			}
			in.ID = id
			if in.Machine.ID == "" {
				in.Machine.ID = in.Machine.Identity()
			}
			out.Provenance.Invocations = append(out.Provenance.Invocations, in)
		}
		for _, s := range p.Set.Samples {
			s.Invocation = ids[s.Invocation]
			s.Process += renumber.process[cellOf(s.Machine, s.Environment, s.Mode, s.N, s.Warmup)]
			out.Samples = append(out.Samples, s)
		}
		for _, r := range p.Set.Runs {
			r.Invocation = ids[r.Invocation]
			k := cellOf(r.Machine, r.Environment, r.Mode, r.N, r.Warmup)
			r.Process += renumber.process[k]
			r.Occasion = max(r.Occasion, 1) + renumber.occasion[k]
			out.Runs = append(out.Runs, r)
		}
		for _, c := range p.Set.Calibration {
			c.Invocation = ids[c.Invocation]
			out.Calibration = append(out.Calibration, c)
		}
	}
	inv.ID = out.Provenance.NextID()
	inv.Command = "merge"
	if inv.EndedAt == nil {
		// A merge happens at once: it begins and ends with the write.
		now := time.Now().UTC()
		if inv.StartedAt.IsZero() {
			inv.StartedAt = now
		}
		inv.EndedAt = &now
	}
	if inv.SpecHash == "" {
		inv.SpecHash = hash
	}
	out.Provenance.Invocations = append(out.Provenance.Invocations, inv)
	MarkClockTrust(out)
	return out, CheckUnique("the merged set", out)
}

// specOf is the spec path of dir's first measuring invocation.
func specOf(parts []Part, dir string) string {
	for _, p := range parts {
		if p.Dir != dir {
			continue
		}
		for _, in := range p.Set.Provenance.Invocations {
			if in.SpecHash != "" && in.Command != "merge" {
				return in.SpecPath
			}
		}
	}
	return "?"
}

// checkDisjoint refuses two parts that hold one (machine, environment,
// mode, n) cell: one cell is one measurement per machine. Runs that
// repeat the cells of another (not shards of one run) are what --occasions
// merges, and the refusal says so.
func checkDisjoint(parts []Part) error {
	type cell struct{ machine, key string }
	owner := map[cell]int{}
	var clash []cell
	clashDirs := map[[2]int]bool{}
	for i, p := range parts {
		mine := map[cell]bool{}
		for _, r := range p.Set.Runs {
			mine[cell{r.Machine, CellKey(r.Environment, r.Mode, int64(r.N))}] = true
		}
		for _, s := range p.Set.Samples {
			mine[cell{s.Machine, CellKey(s.Environment, s.Mode, int64(s.N))}] = true
		}
		for c := range mine {
			if j, ok := owner[c]; ok {
				clash = append(clash, c)
				clashDirs[[2]int{j, i}] = true
				continue
			}
			owner[c] = i
		}
	}
	if len(clash) == 0 {
		return nil
	}
	sort.Slice(clash, func(i, j int) bool {
		if clash[i].machine != clash[j].machine {
			return clash[i].machine < clash[j].machine
		}
		return clash[i].key < clash[j].key
	})
	var pairs []string
	shards := true
	for _, k := range slices.SortedFunc(maps.Keys(clashDirs), func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	}) {
		pairs = append(pairs, parts[k[0]].Dir+" and "+parts[k[1]].Dir)
		shards = shards && isShard(parts[k[0]].Set) && isShard(parts[k[1]].Set)
	}
	// The first few cells and a count; the machine once when all share it.
	machines := map[string]bool{}
	for _, c := range clash {
		machines[c.machine] = true
	}
	var cells []string
	for _, c := range clash[:min(len(clash), 3)] {
		if len(machines) == 1 {
			cells = append(cells, c.key)
		} else {
			cells = append(cells, c.key+" on machine "+c.machine)
		}
	}
	what := strings.Join(cells, ", ")
	if len(clash) > 3 {
		what += fmt.Sprintf(" and %d more cells", len(clash)-3)
	}
	if len(machines) == 1 {
		what += " on machine " + clash[0].machine
	}
	if shards {
		return inputerr.New("%s both hold %s: shards of one run hold each (machine, environment, mode, n) cell once; merge each shard once, and split every shard with the same spawnbench and --costs",
			strings.Join(pairs, "; "), what)
	}
	return inputerr.New("%s both measured %s: to keep runs that repeat the same cells (on different days, say) as occasions of those cells, merge them with --occasions",
		strings.Join(pairs, "; "), what)
}

// isShard: every measuring run of set was one shard of a plan.
func isShard(set *Set) bool {
	measured := false
	for _, in := range set.Provenance.Invocations {
		if in.Command != "run" && in.Command != "resume" {
			continue
		}
		if in.Shard == nil {
			return false
		}
		measured = true
	}
	return measured
}

// mergedCell is one cell of one machine, warm-ups apart.
type mergedCell struct {
	machine, key string
	warmup       bool
}

func cellOf(machine, env, mode string, n int32, warmup bool) mergedCell {
	return mergedCell{machine, CellKey(env, mode, int64(n)), warmup}
}

// occasionShifts are, per cell, the processes and occasions the parts
// merged so far hold: a later part's processes and occasions of the cell
// are numbered on after them.
type occasionShifts struct {
	process, occasion map[mergedCell]int32
}

// shift is what one part's rows of each cell are moved by.
type shift struct {
	process, occasion map[mergedCell]int32
}

// of returns the shift for set's rows and counts them in.
func (o *occasionShifts) of(set *Set) shift {
	if o.process == nil {
		o.process, o.occasion = map[mergedCell]int32{}, map[mergedCell]int32{}
	}
	s := shift{process: map[mergedCell]int32{}, occasion: map[mergedCell]int32{}}
	top := map[mergedCell][2]int32{} // this part's highest process + 1 and occasion
	for _, r := range set.Runs {
		k := cellOf(r.Machine, r.Environment, r.Mode, r.N, r.Warmup)
		s.process[k], s.occasion[k] = o.process[k], o.occasion[k]
		t := top[k]
		top[k] = [2]int32{max(t[0], r.Process+1), max(t[1], max(r.Occasion, 1))}
	}
	for k, t := range top {
		o.process[k] += t[0]
		o.occasion[k] += t[1]
	}
	return s
}
