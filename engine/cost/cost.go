// Package cost says how long a plan will take: the expected wall time of
// each process, from the wall times an earlier result set measured.
//
// Its opinion: what a process costs is its environment's start-up plus
// its spawns, which the process count alone cannot tell (a browser
// process takes seconds, a native one milliseconds), so costs are
// measured, never guessed from the plan. A cell's cost is looked up by
// what the cell carries (environment kind, name, mode, its browser's
// start, warm or cold, and n) in one function, keyOf; n between measured
// ones is interpolated. A warm browser's page that no set measured costs
// what its cold twin did, less what a warm start saves its host (the
// host's cold and warm pages measured side by side, on this machine:
// see Machine). Without an earlier set, the committed reference set's
// costs (reference.json, kept equal to results/reference by a test) are
// used; Model.On rescales them to this machine. Estimates are integer
// nanoseconds so that every machine that splits a plan into shards with
// the same model computes the same shards.
package cost

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
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
	// Start is a browser's start, Warm or Cold; "" for other hosts, and
	// for points that pool every kind.
	Start string `json:"start,omitempty"`
	N     int    `json:"n"`
	// Processes is the number of processes the median is of.
	Processes int `json:"processes"`
	// WallNS is their median wall time, measured outside the process (the
	// pause before it excluded).
	WallNS int64 `json:"wall_ns"`
}

// The browser starts of the schema's browser_start.
const (
	Warm = "warm"
	Cold = "cold"
)

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

//go:embed reference.json
var referenceJSON []byte

// ReferenceDir is the committed set the built-in costs are measured from,
// relative to the repository.
const ReferenceDir = "results/reference"

// Reference is the model of the committed reference set, built in.
func Reference() *Model {
	var pts []Point
	if err := json.Unmarshal(referenceJSON, &pts); err != nil {
		panic(fmt.Sprintf("cost: the built-in reference.json does not parse: %v", err))
	}
	return newModel(ReferenceDir+" (built in)", pts)
}

// Load reads the costs from the result set in dir (--costs DIR).
func Load(dir string) (*Model, error) {
	if !results.Exists(dir) {
		return nil, inputerr.New("--costs %s: no result set there; give the directory of an earlier run, e.g. %s", dir, ReferenceDir)
	}
	set, err := results.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("--costs %s: %w", dir, err)
	}
	m := FromSet(dir, set)
	if len(m.Points) == 0 {
		return nil, inputerr.New("--costs %s: the set has no process with a wall time; give a set that ran processes", dir)
	}
	return m, nil
}

// FromSet measures the curves of a result set's runs, each browser
// run's start read from the set's provenance (StartOf).
func FromSet(source string, set *results.Set) *Model {
	return FromRuns(source, set.Runs, StartOf(set))
}

// StartOf says how each run of set started its browser: the
// browser_start its invocation's spec resolved for its environment;
// Cold for a browser host's run of a set written before the setting
// existed, when every browser started cold; "" for other hosts.
func StartOf(set *results.Set) func(results.ProcessRun) string {
	starts := map[int32]map[string]string{}
	for _, inv := range set.Provenance.Invocations {
		var resolved struct {
			Environments []struct {
				Name         string `json:"name"`
				BrowserStart string `json:"browser_start"`
			} `json:"environments"`
		}
		if json.Unmarshal(inv.Resolved, &resolved) != nil {
			continue
		}
		m := map[string]string{}
		for _, e := range resolved.Environments {
			m[e.Name] = e.BrowserStart
		}
		starts[inv.ID] = m
	}
	return func(r results.ProcessRun) string {
		if !browserHost(r.Host) {
			return ""
		}
		if s := starts[r.Invocation][r.Environment]; s != "" {
			return s
		}
		return Cold
	}
}

// browserHost says whether host opens pages (it has a browser start).
func browserHost(host string) bool { return env.HostForm(host) == env.FormPage }

// startOfCell is the cell's browser start: its environment's
// browser_start, "" for other hosts.
func startOfCell(c spec.Cell) string {
	if !browserHost(c.Env.Host) {
		return ""
	}
	var s struct {
		BrowserStart string `json:"browser_start"`
	}
	if json.Unmarshal(c.Env.Resolved, &s) == nil && s.BrowserStart != "" {
		return s.BrowserStart
	}
	return Warm // the schema's default
}

// FromRuns measures the curves of runs: per (kind, environment, mode,
// start, n), per (kind, mode, start, n) and per (mode, n), the median wall
// time of a process, warm-ups and failed processes included (they take
// time too). startOf says how a run started its browser.
func FromRuns(source string, runs []results.ProcessRun, startOf func(results.ProcessRun) string) *Model {
	starts := make([]string, len(runs))
	for i, r := range runs {
		starts[i] = startOf(r)
	}
	return fromRuns(source, runs, starts)
}

// fromRuns is FromRuns with each run's start given.
func fromRuns(source string, runs []results.ProcessRun, starts []string) *Model {
	type at struct {
		key
		n int
	}
	walls := map[at][]float64{}
	for i, r := range runs {
		if r.WallNS <= 0 {
			continue // never started: no wall time
		}
		start := starts[i]
		for _, k := range []key{{r.Kind, r.Environment, r.Mode, start}, {r.Kind, "", r.Mode, start}, {"", "", r.Mode, ""}} {
			a := at{k, int(r.N)}
			walls[a] = append(walls[a], float64(r.WallNS))
		}
	}
	var pts []Point
	for a, w := range walls {
		pts = append(pts, Point{Kind: a.kind, Environment: a.env, Mode: a.mode, Start: a.start, N: a.n, Processes: len(w), WallNS: int64(stats.Median(w))})
	}
	sort.Slice(pts, func(i, j int) bool {
		a, b := pts[i], pts[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Environment != b.Environment {
			return a.Environment < b.Environment
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.N < b.N
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
// environment (by name within its kind), else its kind, else any kind,
// in its mode, and, for a browser, its start.
func keyOf(c spec.Cell) []key {
	start := startOfCell(c)
	return []key{{c.Env.Kind, c.Env.Name, c.Mode, start}, {c.Env.Kind, "", c.Mode, start}, {"", "", c.Mode, ""}}
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

// Process is the expected wall time of one of the cell's processes,
// including the pause before it, and at most its timeout.
func (m *Model) Process(c spec.Cell) time.Duration {
	wall, _ := m.lookup(c)
	if c.Timeout > 0 {
		wall = min(wall, c.Timeout)
	}
	return c.Pause + wall
}

// lookup is a process's wall time and what it rests on (Basis).
func (m *Model) lookup(c spec.Cell) (time.Duration, string) {
	keys := keyOf(c)
	for i, k := range keys[:2] {
		if curve := m.curves[k]; serves(curve, c.N) {
			return time.Duration(at(curve, c.N)), []string{"environment", "kind"}[i]
		}
	}
	if keys[0].start == Warm {
		for _, k := range keys[:2] {
			k.start = Cold
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
		if startOfCell(c) == Warm && !warm[c.Env.Name] {
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
