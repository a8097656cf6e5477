// Package cost says how long a plan will take: the expected wall time of
// each process, from the wall times earlier result sets measured.
//
// Its opinion: what a process costs is its environment's start-up plus
// its spawns, which the process count alone cannot tell (a browser
// process takes seconds, a native one milliseconds), so costs are
// measured, never guessed from the plan. It is a model and runs nothing:
// its input is plain data, the cost summaries result sets keep
// (results.CellCost: per machine and cell, the processes and their
// median wall time) and what a probe of this machine measured (Machine);
// measuring, probing and reading files are engine/run's. A cell's cost
// is looked up by what the cell carries (environment kind, name, mode,
// its browser's start, warm or cold, and n) in one function, keyOf; n
// between measured ones is interpolated. A kind's cost, and every kind's,
// pools its cells: the median over their processes, each counted at its
// cell's median. A warm browser's page that no set measured costs what
// its cold twin did, less what a warm start saves its host (the host's
// cold and warm pages measured side by side, on this machine: see
// Machine). Without an earlier set, the committed reference set's costs
// (reference.json, kept equal to results/reference's summary by a test)
// are used; Model.On rescales them to this machine. Estimates are integer
// nanoseconds so that every machine that splits a plan into shards with
// the same model computes the same shards.
package cost

import (
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// Point is the median wall time of one process of a (kind, environment,
// mode) at one n, as measured. Environment "" pools every environment of
// the kind, Kind "" every kind.
type Point struct {
	Kind        string `json:"kind"`
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	// Start is a browser's start, hostfacts.Warm or Cold; "" for other
	// hosts, and for points that pool every kind.
	Start string `json:"start,omitempty"`
	N     int    `json:"n"`
	// Processes is the number of processes the median is of.
	Processes int `json:"processes"`
	// WallNS is their median wall time, measured outside the process (the
	// pause before it excluded).
	WallNS int64 `json:"wall_ns"`
}

// key is what a cost is looked up by: one curve over n.
type key struct{ kind, env, mode, start string }

// Model holds measured curves of wall time over n.
type Model struct {
	// Source says where the costs come from, for messages.
	Source string
	Points []Point
	curves map[key][]Point // sorted by N
	id     string
	// saving is, per browser host, what a warm start saves a page
	// against a cold one, and warmFloor the cheapest warm page measured
	// (no page costs less), where a machine measured them (On).
	saving, warmFloor map[string]int64
	// machine, when set, is what On rescaled base by.
	machine *Machine
	base    *Model
}

// referenceJSON is the committed reference set's cost summary, as its
// costs.json would hold it (results.Costs).
//
//go:embed reference.json
var referenceJSON []byte

// ReferenceDir is the committed set the built-in costs are measured from,
// relative to the repository.
const ReferenceDir = "results/reference"

// Reference is the model of the committed reference set, built in.
func Reference() *Model {
	var c results.Costs
	if err := json.Unmarshal(referenceJSON, &c); err != nil {
		panic(fmt.Sprintf("cost: the built-in reference.json does not parse: %v", err))
	}
	return FromCosts(ReferenceDir+" (built in)", c.Cells)
}

// startOfCell is the cell's browser start: its environment's
// browser_start, "" for other hosts.
func startOfCell(c spec.Cell) string {
	if !hostfacts.Browser(c.Env.Host) {
		return ""
	}
	var s struct {
		BrowserStart string `json:"browser_start"`
	}
	if json.Unmarshal(c.Env.Resolved, &s) == nil && s.BrowserStart != "" {
		return s.BrowserStart
	}
	return hostfacts.Warm // the schema's default
}

// FromCosts is the model of cells, one result set's cost summary or
// several's: per (kind, environment, mode, start, n), per (kind, mode,
// start, n) and per (mode, n), the median wall time of a process, each
// cell's processes counted at its median (several machines' or sets' of
// one cell pool alike).
func FromCosts(source string, cells []results.CellCost) *Model {
	type at struct {
		key
		n int
	}
	walls := map[at][]float64{}
	for _, c := range cells {
		if c.Processes <= 0 {
			continue
		}
		for _, k := range []key{{c.Kind, c.Environment, c.Mode, c.Start}, {c.Kind, "", c.Mode, c.Start}, {"", "", c.Mode, ""}} {
			a := at{k, c.N}
			for range c.Processes {
				walls[a] = append(walls[a], float64(c.MedianWallNS))
			}
		}
	}
	pts := make([]Point, 0, len(walls))
	for a, w := range walls {
		pts = append(pts, Point{Kind: a.kind, Environment: a.env, Mode: a.mode, Start: a.start, N: a.n, Processes: len(w), WallNS: int64(stats.Median(w))})
	}
	slices.SortFunc(pts, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Environment, b.Environment), cmp.Compare(a.Mode, b.Mode), cmp.Compare(a.Start, b.Start), cmp.Compare(a.N, b.N))
	})
	return newModel(source, pts)
}

func newModel(source string, pts []Point) *Model {
	b, _ := json.Marshal(pts) // plain structs: cannot fail
	sum := sha256.Sum256(b)
	m := &Model{Source: source, Points: pts, curves: map[key][]Point{}, id: hex.EncodeToString(sum[:6])}
	for _, p := range pts {
		k := key{p.Kind, p.Environment, p.Mode, p.Start}
		m.curves[k] = append(m.curves[k], p)
	}
	for _, c := range m.curves {
		slices.SortFunc(c, func(a, b Point) int { return a.N - b.N })
	}
	return m
}

// ID identifies the model by its points (a short SHA-256): two models
// with one ID split every plan alike.
func (m *Model) ID() string { return m.id }

// keyOf is the one place that says what a cell's cost depends on: its
// environment (by name within its kind; a one-CPU twin by the
// environment it measures), else its kind, else any kind, in its mode,
// and, for a browser, its start.
func keyOf(c spec.Cell) []key {
	start := startOfCell(c)
	name := c.Env.Name
	if c.Env.PlacementOf != "" {
		name = c.Env.PlacementOf
	}
	return []key{{c.Env.Kind, name, c.Mode, start}, {c.Env.Kind, "", c.Mode, start}, {"", "", c.Mode, ""}}
}

// Basis names what a cell's estimate rests on: "environment", "kind",
// "cold start" (a warm browser's cell from its cold twin, less what a
// warm start saves), "cold" (the same, with no saving known, so too
// high), "other kinds" (its kind was never measured) or "" (nothing in
// its mode).
func (m *Model) Basis(c spec.Cell) string {
	_, basis := m.lookup(c)
	return basis
}

// Unknown is the wall time assumed for a process nothing is known about
// (a mode no earlier set ran): a browser's start, on the safe side.
const Unknown = 3 * time.Second

// RunnerOverhead is the run's own time per process that neither the
// process's wall time nor the wait before it (Wait) counts: starting it
// into its cgroup, collecting and journaling its lines, reading the
// machine's load around it, and a browser's freeze between pages. It is
// measured from sets' runs (the invocation's wall time less its
// processes' walls and waits, per process; engine/run's estimate test
// recomputes it) and is the same on every machine measured so far, so
// it is not rescaled.
const RunnerOverhead = 30 * time.Millisecond

// Process is the expected time one of the cell's processes takes of a
// run: the wait before it (Wait), the runner's own work
// (RunnerOverhead), and its wall time (Wall).
func (m *Model) Process(c spec.Cell) time.Duration {
	return Wait(c) + RunnerOverhead + m.Wall(c)
}

// Wall is the expected wall time of one of the cell's processes alone,
// as a set measures it (results.ProcessRun.WallNS), at most its timeout:
// what a probe's process compares with.
func (m *Model) Wall(c spec.Cell) time.Duration {
	wall, _ := m.lookup(c)
	if c.Timeout > 0 {
		wall = min(wall, c.Timeout)
	}
	return wall
}

// lookup is a process's wall time and what it rests on (Basis).
func (m *Model) lookup(c spec.Cell) (time.Duration, string) {
	keys := keyOf(c)
	for i, k := range keys[:2] {
		if curve := m.curves[k]; serves(curve, c.N) {
			return time.Duration(at(curve, c.N)), []string{"environment", "kind"}[i]
		}
	}
	if keys[0].start == hostfacts.Warm {
		for _, k := range keys[:2] {
			k.start = hostfacts.Cold
			curve := m.curves[k]
			if !serves(curve, c.N) {
				continue
			}
			cold := at(curve, c.N)
			saving, ok := m.saving[c.Env.Host]
			if !ok {
				return time.Duration(cold), "cold"
			}
			return time.Duration(max(cold-saving, m.warmFloor[c.Env.Host])), "cold start"
		}
	}
	if curve := m.curves[keys[2]]; len(curve) > 0 {
		return time.Duration(at(curve, c.N)), "other kinds"
	}
	return Unknown, ""
}

// serves says whether a curve can say what a process at n costs: one
// measured n says nothing of another.
func serves(curve []Point, n int) bool {
	return len(curve) >= 2 || len(curve) == 1 && curve[0].N == n
}

// Cell is the expected wall time of all the cell's processes, warm-ups
// included.
func (m *Model) Cell(c spec.Cell) time.Duration {
	return time.Duration(c.Total()) * m.Process(c)
}

// Plan is the expected wall time of every process of the plan, and of
// the start of each warm browser (one per environment, where the model
// knows what a start costs: what a warm start saves a page); builds not
// included.
func (m *Model) Plan(p *spec.RunPlan) time.Duration {
	var total time.Duration
	warm := map[string]bool{}
	for _, c := range p.Cells {
		total += m.Cell(c)
		if startOfCell(c) == hostfacts.Warm && !warm[c.Env.Name] {
			warm[c.Env.Name] = true
			total += time.Duration(m.saving[c.Env.Host])
		}
	}
	return total
}

// at is the curve's wall time at n: measured, linear between the measured
// n around it, the first below, extrapolated from the last two above (a
// process's cost grows about linearly in its spawns); never below the
// smallest measured.
func at(curve []Point, n int) int64 {
	lo := curve[0].WallNS
	for _, p := range curve {
		lo = min(lo, p.WallNS)
	}
	i := sort.Search(len(curve), func(i int) bool { return curve[i].N >= n })
	switch {
	case i < len(curve) && curve[i].N == n:
		return curve[i].WallNS
	case i == 0:
		return curve[0].WallNS
	case i == len(curve) && len(curve) == 1:
		return curve[0].WallNS
	case i == len(curve):
		i-- // extrapolate from the last two
	}
	a, b := curve[i-1], curve[i]
	v := a.WallNS + (b.WallNS-a.WallNS)*int64(n-a.N)/int64(b.N-a.N)
	return max(v, lo)
}

// Round shortens an expected duration for people: milliseconds below a
// second, tenths of a second below a minute, whole seconds above.
func Round(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// Wait is the least a process of c waits before it starts: its pause,
// or where the cell settles, one settle window, which spans the pause
// when the pause is shorter (engine/proc's SettleRule.AtLeast).
func Wait(c spec.Cell) time.Duration {
	if c.Settle.Cap <= 0 {
		return c.Pause
	}
	return max(c.Pause, c.Settle.Window)
}
