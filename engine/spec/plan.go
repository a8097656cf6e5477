package spec

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"time"
)

// Cell is one (environment, mode, n) of a plan, with everything its
// processes need: the runner reads nothing else.
type Cell struct {
	// Index is the cell's position in RunPlan.Cells.
	Index int
	Env   EnvironmentSpec
	Mode  string
	N     int
	// Benchmark is the program, "sequential" or "parallel"; Arg its
	// argument (n).
	Benchmark string
	Arg       int
	// Processes is the number of measured fresh processes planned: enough
	// for Samples.Min spawns, and at least the floor of independent
	// processes (Samples.Processes, or the environment's own).
	Processes int
	// Floor is that floor. It is no verdict's bar: whether a cell is
	// judged is stats.NotJudgedRule's, whatever the floor.
	Floor int
	// Precision is the interval's relative half-width that counts as
	// converged.
	Precision float64
	// Adaptive, when set, lets the runner add rounds of processes to
	// the cell until it converges.
	Adaptive *AdaptivePolicy
	// Warmup processes run before the cell's first measured one; their
	// samples are marked.
	Warmup int
	// Pause is slept before each process.
	Pause time.Duration
	// Settle is how quiet the machine must be before each process.
	Settle SettleSpec
	// Timeout is the hard deadline for one process tree.
	Timeout time.Duration
	// CPUs is the pinning of every process; nil means none.
	CPUs []int
}

// AdaptivePolicy bounds the processes adaptive stopping adds to a cell.
type AdaptivePolicy struct {
	// MaxProcesses is the most measured processes the cell may have.
	MaxProcesses int
	// Round is the processes added to the cell per round.
	Round int
	// Budget is the wall time the added rounds may spend on the cell.
	Budget time.Duration
	// Last, when above 0, judges the cell's precision on its processes'
	// last Last spawns too (the wider of the two views): the steady state
	// the bottom line quotes at n of views.minN or more.
	Last int
}

// Key is the cell's identity everywhere: "environment/mode/n".
func (c Cell) Key() string { return fmt.Sprintf("%s/%s/%d", c.Env.Name, c.Mode, c.N) }

// Total is the cell's processes, warm-ups included.
func (c Cell) Total() int { return c.Processes + c.Warmup }

// Samples is the number of measured spawns the cell will record.
func (c Cell) Samples() int { return c.N * c.Processes }

// Step is one process of the run, in run order.
type Step struct {
	// Seq is the 0-based position in the run order.
	Seq int `json:"seq"`
	// Cell indexes RunPlan.Cells.
	Cell int `json:"cell"`
	// Process is 0-based within the cell; warm-ups are numbered apart,
	// from 0.
	Process int  `json:"process"`
	Warmup  bool `json:"warmup,omitempty"`
	// Occasion is the block of the run the process belongs to, from 1.
	Occasion int `json:"occasion"`
}

// Schedule is the order in which a plan's processes run.
type Schedule struct {
	// Order is "interleave" or "blocked".
	Order string
	// Seed is the seed actually used (>= 0); blocked order ignores it.
	Seed  int64
	Steps []Step
}

// Orders are the schedule orders; the schema holds the same list.
const (
	Interleave = "interleave"
	Blocked    = "blocked"
)

// RunPlan is a spec expanded into the cells to run and their order.
type RunPlan struct {
	// Spec is provenance only (Source, Hash, Path, Name, Resolved): every
	// value a process needs is in its Cell.
	Spec     *Spec
	Cells    []Cell
	Schedule Schedule
}

// Expand turns the spec into a plan. only, when non-empty, keeps the named
// environments; a name the spec lacks is an InputError. An empty plan is
// an InputError too. Without a seed in the spec, the plan picks one.
func Expand(s *Spec, only []string) (*RunPlan, error) {
	envs, err := Select(s, only)
	if err != nil {
		return nil, err
	}
	p := &RunPlan{Spec: s}
	for _, e := range envs {
		for _, m := range s.Modes {
			for _, n := range s.NOf(e) {
				floor := s.Samples.Processes
				if e.Processes != nil {
					floor = *e.Processes
				}
				minSpawns := s.Samples.Min
				if e.Min != nil {
					minSpawns = *e.Min
				}
				procs := max((minSpawns+n-1)/n, floor, 1)
				c := Cell{
					Index: len(p.Cells), Env: e, Mode: m, N: n,
					Benchmark: m, Arg: n,
					Processes: procs, Floor: floor, Precision: s.Samples.Precision,
					Warmup: s.Samples.Warmup,
					Pause:  s.Samples.Pause, Settle: s.Schedule.Settle, Timeout: s.Timeout, CPUs: s.CPUsOf(e),
				}
				if s.Samples.Adaptive {
					c.Adaptive = &AdaptivePolicy{MaxProcesses: max(s.Samples.MaxProcesses, procs), Round: s.Samples.Round, Budget: s.Samples.Budget}
				}
				if b := s.BottomLine; b.Covers(e, n) && b.From != "" {
					c.Precision = b.Precision // its processes come from the allocation
				} else if b.Covers(e, n) {
					c.Precision = b.Precision
					c.Adaptive = &AdaptivePolicy{MaxProcesses: max(b.MaxProcesses, procs), Round: b.Round, Budget: b.Budget}
					if n >= s.Views.MinN {
						c.Adaptive.Last = s.Views.Last
					}
				}
				p.Cells = append(p.Cells, c)
			}
		}
	}
	if len(p.Cells) == 0 {
		return nil, inputErrorf("spec %s: the plan is empty (no environment, mode or n to measure); give at least one of each", s.Path)
	}
	seed := rand.Int64() // non-negative
	if s.Schedule.Seed != nil {
		seed = *s.Schedule.Seed
	}
	p.Reschedule(s.Schedule.Order, seed)
	return p, nil
}

// Reschedule recomputes the schedule with this order and seed (for
// --seed and for resuming a run). Same plan, order and seed: same steps.
// With occasions, the run is that many blocks one after another: block k
// holds the k-th share of every cell's processes (a cell's processes are
// numbered on across blocks), interleaved within the block, each block
// shuffled with its own stream of the seed.
func (p *RunPlan) Reschedule(order string, seed int64) {
	occasions := 1
	if p.Spec != nil {
		occasions = max(p.Spec.Schedule.Occasions, 1)
	}
	p.Schedule = Schedule{Order: order, Seed: seed}
	next := make([]int, len(p.Cells))
	warmed := make([]bool, len(p.Cells))
	add := func(cell, process int, warm bool, occasion int) {
		p.Schedule.Steps = append(p.Schedule.Steps, Step{Seq: len(p.Schedule.Steps), Cell: cell, Process: process, Warmup: warm, Occasion: occasion})
	}
	for o := range occasions {
		var measured []int // one cell index per measured process of the block
		for _, c := range p.Cells {
			for range c.Processes*(o+1)/occasions - c.Processes*o/occasions {
				measured = append(measured, c.Index)
			}
		}
		if order != Blocked {
			Shuffle(measured, seed+int64(o))
		}
		for _, ci := range measured {
			if !warmed[ci] {
				warmed[ci] = true
				for w := range p.Cells[ci].Warmup {
					add(ci, w, true, o+1)
				}
			}
			add(ci, next[ci], false, o+1)
			next[ci]++
		}
	}
}

// Shuffle is a Fisher-Yates shuffle driven by PCG, written out so that a
// seed gives the same order whatever Go's library does in later versions.
func Shuffle(xs []int, seed int64) {
	src := rand.NewPCG(uint64(seed), 0x5350415742454e43) // "SPAWBENC"
	for i := len(xs) - 1; i > 0; i-- {
		j := boundedRand(src, uint64(i+1))
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// boundedRand is uniform in [0, n), by rejection.
func boundedRand(src *rand.PCG, n uint64) uint64 {
	limit := ^uint64(0) - (^uint64(0)%n+1)%n
	for {
		if v := src.Uint64(); v <= limit {
			return v % n
		}
	}
}

// TotalProcesses is every process of the plan, warm-ups included.
func (p *RunPlan) TotalProcesses() int {
	total := 0
	for _, c := range p.Cells {
		total += c.Total()
	}
	return total
}

// LoadPlan loads the spec at path and expands it, keeping only the named
// environments when only is non-empty.
func LoadPlan(path string, only []string) (*RunPlan, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Expand(s, only)
}

// Select returns the spec's environments that only names (all when
// empty), in spec order. Each entry of only is a name or a glob pattern
// (path.Match: 'wasmtime-*', 'manual?'), and must match at least one
// environment.
func Select(s *Spec, only []string) ([]EnvironmentSpec, error) {
	if len(only) == 0 {
		return s.Environments, nil
	}
	var names []string
	for _, e := range s.Environments {
		names = append(names, e.Name)
	}
	want := map[string]bool{}
	for _, pattern := range only {
		matched := false
		for _, name := range names {
			ok, err := path.Match(pattern, name)
			if err != nil {
				return nil, inputErrorf("--env %q: not a name or a glob pattern (%v); quote it and use *, ? or [...] as in 'wasmtime-*'", pattern, err)
			}
			if ok {
				want[name], matched = true, true
			}
		}
		if !matched {
			return nil, inputErrorf("--env %s: spec %s has no environment of that name or matching that pattern; %sit has: %s", pattern, s.Path, guessEnv(pattern, names), strings.Join(names, ", "))
		}
	}
	var out []EnvironmentSpec
	for _, e := range s.Environments {
		if want[e.Name] {
			out = append(out, e)
		}
	}
	return out, nil
}

// planJSON is the resolved plan as `spawnbench plan --format json` prints
// it.
type planJSON struct {
	Spec struct {
		Path     string          `json:"path"`
		Name     string          `json:"name"`
		Hash     string          `json:"sha256"`
		Resolved json.RawMessage `json:"resolved"`
	} `json:"spec"`
	Cells    []cellJSON `json:"cells"`
	Schedule struct {
		Order string `json:"order"`
		Seed  int64  `json:"seed"`
		Steps []Step `json:"steps"`
	} `json:"schedule"`
}

type cellJSON struct {
	Index       int             `json:"index"`
	Key         string          `json:"key"`
	Environment string          `json:"environment"`
	Kind        string          `json:"kind"`
	Payload     string          `json:"payload"`
	Host        string          `json:"host"`
	Settings    json.RawMessage `json:"settings"`
	Mode        string          `json:"mode"`
	N           int             `json:"n"`
	Benchmark   string          `json:"benchmark"`
	Arg         int             `json:"arg"`
	Processes   int             `json:"processes"`
	Floor       int             `json:"floor"`
	Precision   float64         `json:"precision"`
	Adaptive    *adaptiveJSON   `json:"adaptive,omitempty"`
	Warmup      int             `json:"warmup"`
	Pause       string          `json:"pause"`
	Settle      *settleJSON     `json:"settle,omitempty"`
	Timeout     string          `json:"timeout"`
	CPUs        []int           `json:"cpus"`
}

type settleJSON struct {
	BelowCPUs float64 `json:"below_cpus"`
	Cap       string  `json:"cap"`
	Window    string  `json:"window"`
}

type adaptiveJSON struct {
	MaxProcesses int    `json:"max_processes"`
	Round        int    `json:"round"`
	Budget       string `json:"budget"`
	Last         int    `json:"last,omitempty"`
}

// MarshalJSON renders the resolved plan: provenance, cells with their
// resolved settings, and the schedule.
func (p *RunPlan) MarshalJSON() ([]byte, error) {
	var out planJSON
	out.Spec.Path, out.Spec.Name, out.Spec.Hash, out.Spec.Resolved = p.Spec.Path, p.Spec.Name, p.Spec.Hash, p.Spec.Resolved
	for _, c := range p.Cells {
		cj := cellJSON{
			Index: c.Index, Key: c.Key(), Environment: c.Env.Name, Kind: c.Env.Kind, Payload: c.Env.Payload, Host: c.Env.Host, Settings: c.Env.Resolved,
			Mode: c.Mode, N: c.N, Benchmark: c.Benchmark, Arg: c.Arg, Processes: c.Processes,
			Floor: c.Floor, Precision: c.Precision, Warmup: c.Warmup,
			Pause: c.Pause.String(), Timeout: c.Timeout.String(), CPUs: c.CPUs,
		}
		if st := c.Settle; st.Cap > 0 {
			cj.Settle = &settleJSON{BelowCPUs: st.BelowCPUs, Cap: st.Cap.String(), Window: st.Window.String()}
		}
		if a := c.Adaptive; a != nil {
			cj.Adaptive = &adaptiveJSON{MaxProcesses: a.MaxProcesses, Round: a.Round, Budget: a.Budget.String(), Last: a.Last}
		}
		out.Cells = append(out.Cells, cj)
	}
	out.Schedule.Order, out.Schedule.Seed, out.Schedule.Steps = p.Schedule.Order, p.Schedule.Seed, p.Schedule.Steps
	return json.Marshal(out)
}
